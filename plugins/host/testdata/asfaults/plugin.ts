// An AssemblyScript verifier built with the SDK that faults on purpose, for
// the tests of what the host says about it: config.mode "throw" throws,
// "oom" allocates past any memory cap.

import { Describe, VerifyInput, VerifyOutput, str, serveDescribe, serveVerify, serveVerifyBatch } from "../../../../sdk/assemblyscript/assembly/index";
export { wasmeval_input, wasmeval_output } from "../../../../sdk/assemblyscript/assembly/index";

export function describe(): i32 {
  return serveDescribe(new Describe("asfaults", "1.0.0", ["verifier"]));
}

const kept: Array<ArrayBuffer> = [];

export function verify(): i32 { return serveVerify(verifyCase); }
export function verify_batch(): i32 { return serveVerifyBatch(verifyCase); }

function verifyCase(input: VerifyInput): VerifyOutput | null {
  const mode = str(input.config, "mode");
  if (mode == "throw") throw new Error("no expected output for case " + input.case.id);
  if (mode == "oom") {
    for (;;) kept.push(new ArrayBuffer(8 << 20));
  }
  return new VerifyOutput();
}
