;; What semantics.wat imports.
(module
  (func (export "add") (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1)))
  (global (export "base") i32 (i32.const 41)))
