;; A loop that never ends, and a recursion without loops that would take
;; 2^n calls: preemption points must stop both at the call's deadline.
;; Each first calls env.started, so a test knows the guest is running.
(module
  (import "env" "started" (func $started))
  (func (export "spin")
    (call $started)
    (loop $l (br $l)))
  (func (export "fork") (param $n i32)
    (call $started)
    (call $fork (local.get $n)))
  (func $fork (param $n i32)
    (if (local.get $n)
      (then
        (call $fork (i32.sub (local.get $n) (i32.const 1)))
        (call $fork (i32.sub (local.get $n) (i32.const 1)))))))
