// Setup functions: the steps of a task spec's `config` that are not built
// into wasmeval. A setup function does not touch the sandbox; it returns
// the actions that prepare it (files to write, commands to run), which
// wasmeval performs. A plugin serves several, by name:
//
//   const SETUP = new Map<string, SetupFunction>();
//   SETUP.set("seed_database", seed);
//
//   export function describe(): i32 {
//     const d = new Describe("my-setup", "1.0.0", ["setup"]);
//     addSetupFunctions(d, SETUP);
//     return serveDescribe(d);
//   }
//   export function setup(): i32 { return serveSetup(SETUP); }

import { compareKeys, quote } from "./json";
import { Describe, SetupAction, SetupInput, SetupOutput, SetupRun, SetupWrite } from "./models";

/** One setup function: the actions for a task, an output whose error says
 * why it cannot prepare this task, or null (through fail("why")) when the
 * call itself fails. */
export type SetupFunction = (input: SetupInput) => SetupOutput | null;

/** The action that writes text into the sandbox at path. */
export function writeFile(path: string, content: string): SetupAction {
  const w = new SetupWrite();
  w.path = path;
  w.content = content;
  const a = new SetupAction();
  a.write = w;
  return a;
}

/** The action that writes bytes, of any kind, into the sandbox at path
 * (sent base64). */
export function writeBytes(path: string, data: Uint8Array): SetupAction {
  const w = new SetupWrite();
  w.path = path;
  w.contentBase64 = base64(data);
  const a = new SetupAction();
  a.write = w;
  return a;
}

/** The action that runs a program with its arguments in the sandbox's
 * working directory (no shell). */
export function runCommand(command: Array<string>): SetupAction {
  const r = new SetupRun();
  r.command = command;
  const a = new SetupAction();
  a.run = r;
  return a;
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** The standard base64 encoding (RFC 4648, with padding), as the host
 * decodes content_base64. */
export function base64(data: Uint8Array): string {
  const parts = new Array<string>();
  for (let i = 0; i < data.length; i += 3) {
    const left = data.length - i;
    const n = (<u32>data[i] << 16) | (left > 1 ? <u32>data[i + 1] << 8 : 0) | (left > 2 ? <u32>data[i + 2] : 0);
    for (let k = 0; k < 4; k++) {
      parts.push(k <= left ? ALPHABET.charAt(<i32>((n >> (18 - 6 * k)) & 63)) : "=");
    }
  }
  return parts.join("");
}

/** The error every SDK answers a setup call with when the plugin has no
 * function of that name: `unknown setup function "name" (functions: a, b)`. */
export function unknownSetupFunction(name: string, have: Array<string>): string {
  return "unknown setup function " + quote(name) + " (functions: " + have.join(", ") + ")";
}

/** The names of fns, sorted. */
export function setupFunctionNames(fns: Map<string, SetupFunction>): Array<string> {
  const names = fns.keys();
  names.sort(compareKeys);
  return names;
}

/** Lists the names of fns in d.functions, after those listed already
 * (sorted, each once), as serveSetup dispatches on them. */
export function addSetupFunctions(d: Describe, fns: Map<string, SetupFunction>): void {
  const names = setupFunctionNames(fns);
  for (let i = 0; i < names.length; i++) {
    if (!d.functions.includes(names[i])) d.functions.push(names[i]);
  }
}

/** The functions the current setup call dispatches on (a function
 * reference cannot close over them). Null until serveSetup sets it, so a
 * plugin without setup gets no code to initialise it. */
let served: Map<string, SetupFunction> | null = null;

/** Makes fns the functions dispatchSetup chooses from. */
export function useSetupFunctions(fns: Map<string, SetupFunction>): void { served = fns; }

/** Calls the function the input names, or, for a name the plugin does not
 * have, answers with an output whose error names those it has (the task
 * cannot run; the call itself does not fail). */
export function dispatchSetup(input: SetupInput): SetupOutput | null {
  const fns = served!;
  if (!fns.has(input.function)) {
    const out = new SetupOutput();
    out.error = unknownSetupFunction(input.function, setupFunctionNames(fns));
    return out;
  }
  return fns.get(input.function)(input);
}
