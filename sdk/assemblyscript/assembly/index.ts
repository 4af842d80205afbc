// wasmeval — the AssemblyScript SDK for wasmeval plugins. See
// docs/sdk-assemblyscript.md.
export * from "./json";
export * from "./models";
export * from "./compare";
export * from "./text";
export * from "./answer";
export * from "./entry";
export { log, readAsset, wasmeval_input, wasmeval_output } from "./host";
import "./abort/abort";
