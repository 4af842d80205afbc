;; Everything the rewrite renumbers or walks, so an instrumented module can
;; be held to the original's results: an imported function before the
;; module's own, calls, call_indirect through active, passive and
;; declarative element segments, ref.func in a global and in code, the
;; start function, loops with parameters, br_table, SIMD and bulk memory.
(module
  (type $binop (func (param i32 i32) (result i32)))
  (import "env" "add" (func $add (param i32 i32) (result i32)))
  (import "env" "base" (global $base i32))
  (memory (export "memory") 1)
  (table $t 4 funcref)
  (table $u 2 funcref)
  (global $started (mut i32) (i32.const 0))
  (global $fref funcref (ref.func $mul))
  (elem (table $t) (i32.const 0) func $mul $sub)
  (elem $passive func $add $mul)
  (elem declare func $square)
  (data $bytes "\01\02\03\04\05\06\07\08\09\0a\0b\0c\0d\0e\0f\10")

  (func $mul (type $binop) (i32.mul (local.get 0) (local.get 1)))
  (func $sub (type $binop) (i32.sub (local.get 0) (local.get 1)))
  (func $square (param i32) (result i32) (i32.mul (local.get 0) (local.get 0)))
  (func $start (global.set $started (i32.add (global.get $base) (i32.const 1))))
  (start $start)

  (func (export "started") (result i32) (global.get $started))

  ;; sum of add(i, i) for i in [0, n), through the import, in a loop
  ;; whose block carries a parameter
  (func (export "sum") (param $n i32) (result i32)
    (local $i i32)
    (i32.const 0)
    (loop $l (param i32) (result i32)
      (call $add (local.get $i) (local.get $i))
      (i32.add)
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (local.get $n)))))

  (func (export "indirect") (param $which i32) (param $a i32) (param $b i32) (result i32)
    (call_indirect $t (type $binop) (local.get $a) (local.get $b) (local.get $which)))

  (func (export "passive") (param $a i32) (param $b i32) (result i32)
    (table.init $u $passive (i32.const 0) (i32.const 0) (i32.const 2))
    (i32.add
      (call_indirect $u (type $binop) (local.get $a) (local.get $b) (i32.const 0))
      (call_indirect $u (type $binop) (local.get $a) (local.get $b) (i32.const 1))))

  (func (export "refs") (param $a i32) (result i32)
    (table.set $t (i32.const 2) (global.get $fref))
    (table.set $t (i32.const 3) (ref.func $mul))
    (i32.add
      (call_indirect $t (type $binop) (local.get $a) (i32.const 3) (i32.const 2))
      (call_indirect $t (type $binop) (local.get $a) (i32.const 5) (i32.const 3))))

  (func (export "classify") (param $x i32) (result i32)
    (block $c (block $b (block $a
      (br_table $a $b $c (local.get $x)))
      (return (i32.const 100)))
      (return (i32.const 200)))
    (i32.const 300))

  ;; the sum of the 16 data bytes, through memory.init and SIMD lanes
  (func (export "simd") (result i32)
    (local $v v128)
    (memory.init $bytes (i32.const 64) (i32.const 0) (i32.const 16))
    (local.set $v (v128.load (i32.const 64)))
    (local.set $v (i16x8.extadd_pairwise_i8x16_u (local.get $v)))
    (local.set $v (i32x4.extadd_pairwise_i16x8_u (local.get $v)))
    (i32.add
      (i32.add (i32x4.extract_lane 0 (local.get $v)) (i32x4.extract_lane 1 (local.get $v)))
      (i32.add (i32x4.extract_lane 2 (local.get $v)) (i32x4.extract_lane 3 (local.get $v)))))

  ;; fill and copy memory, then count in a loop the bytes equal to $b
  (func (export "bulk") (param $b i32) (result i32)
    (local $i i32) (local $n i32)
    (memory.fill (i32.const 128) (local.get $b) (i32.const 100))
    (memory.copy (i32.const 300) (i32.const 128) (i32.const 50))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (i32.const 400)))
        (if (i32.eq (i32.load8_u offset=128 (local.get $i)) (local.get $b))
          (then (local.set $n (i32.add (local.get $n) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $n))

  (func $crash (export "crash") (result i32) (call $boom) (i32.const 0))
  (func $boom unreachable)

  (func (export "square_ref") (result i32)
    (ref.is_null (ref.func $square)))
)
