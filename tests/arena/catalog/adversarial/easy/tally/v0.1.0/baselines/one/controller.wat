(module
  (memory (export "memory") 2)
  (data (i32.const 1024) "\7b\22\6d\6f\76\65\73\22\3a\5b\7b\22\61\67\65\6e\74\22\3a\30\2c\22\64\69\72\22\3a\31\7d\5d\7d")
  
  (func (export "alloc") (param $n i32) (result i32) (i32.const 8192))
  (func (export "tick") (param $p i32) (param $n i32) (result i64)
    (local $i i32) (local $d i32)
    
    (local.set $d (i32.const 48))
    (block $done (loop $scan
      (br_if $done (i32.ge_s (local.get $i) (i32.sub (local.get $n) (i32.const 5))))
      (if (i32.and
            (i32.and (i32.eq (i32.load8_u (i32.add (local.get $p) (local.get $i))) (i32.const 34))
                     (i32.eq (i32.load8_u offset=1 (i32.add (local.get $p) (local.get $i))) (i32.const 109)))
            (i32.and (i32.eq (i32.load8_u offset=2 (i32.add (local.get $p) (local.get $i))) (i32.const 101))
                     (i32.eq (i32.load8_u offset=3 (i32.add (local.get $p) (local.get $i))) (i32.const 34))))
        (then (local.set $d (i32.load8_u offset=5 (i32.add (local.get $p) (local.get $i)))) (br $done)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $scan)))
    (i32.store8 (i32.const 1043) (local.get $d))
    (i64.or (i64.shl (i64.const 1024) (i64.const 32)) (i64.const 31))))
