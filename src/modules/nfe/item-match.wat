;; The NF-e detail's item loop (item-shape.ts): the items that have the shape learnt are matched
;; and written here, sixteen bytes at a time. The source of src/modules/nfe/item-match.wasm
;; (`npm run wasm` writes it; test/modules/nfe/item-match.test.ts checks that they agree).
;;
;; Memory, as item-match.ts lays it out (addresses in bytes):
;;   0x0000  separator starts, i32 per separator (+1: the end of the last), relative to 0x6000
;;   0x1000  kind of each leaf, u8: 0 string, 1 number, 2 null, 3 true, 4 false
;;   0x1400  where each separator starts in the item being matched, i32
;;   0x2000  the plan, five i32 per step (item-shape.ts: COPY, CONSTANT, QUOTED)
;;   0x6000  the separators' bytes      0xa000  the constants' bytes
;;   0x10000 the body, from the items on, then zeros; after it the output
;; Every read or write may run 15 bytes past what it needs: item-match.ts leaves room there.
(module
  (memory (export "memory") 1)
  ;; After `run`: where the scan is and where the output ends.
  (global $pos (export "pos") (mut i32) (i32.const 0))
  (global $out (export "out") (mut i32) (i32.const 0))

  ;; Where the item at $i ends (after its `}`), its separators' places stored at 0x1400; -1 when
  ;; it has another shape, or runs to $last.
  (func $match (param $i i32) (param $last i32) (param $leaves i32) (result i32)
    (local $e i32) (local $from i32) (local $length i32) (local $k i32) (local $left i32)
    (local $m i32) (local $kind i32) (local $word i32)
    (loop $separator
      (local.set $from (i32.load (i32.shl (local.get $e) (i32.const 2))))
      (local.set $length
        (i32.sub (i32.load offset=4 (i32.shl (local.get $e) (i32.const 2))) (local.get $from)))
      ;; The separator, and the byte after it, are inside the body.
      (if (i32.ge_s (i32.add (local.get $i) (local.get $length)) (local.get $last))
        (then (return (i32.const -1))))
      (local.set $from (i32.add (local.get $from) (i32.const 0x6000)))
      (local.set $k (i32.const 0))
      (block $same
        (loop $sixteen
          (local.set $left (i32.sub (local.get $length) (local.get $k)))
          (br_if $same (i32.le_s (local.get $left) (i32.const 0)))
          (local.set $m
            (i8x16.bitmask
              (i8x16.eq
                (v128.load (i32.add (local.get $i) (local.get $k)))
                (v128.load (i32.add (local.get $from) (local.get $k))))))
          ;; Only the bytes still in the separator count.
          (if (i32.lt_s (local.get $left) (i32.const 16))
            (then
              (local.set $m
                (i32.or (local.get $m) (i32.shl (i32.const -1) (local.get $left))))))
          (if (i32.ne (i32.and (local.get $m) (i32.const 0xffff)) (i32.const 0xffff))
            (then (return (i32.const -1))))
          (local.set $k (i32.add (local.get $k) (i32.const 16)))
          (br $sixteen)))
      (i32.store offset=0x1400 (i32.shl (local.get $e) (i32.const 2)) (local.get $i))
      (local.set $i (i32.add (local.get $i) (local.get $length)))
      (if (i32.eq (local.get $e) (local.get $leaves)) (then (return (local.get $i))))
      (local.set $kind (i32.load8_u offset=0x1000 (local.get $e)))
      (if (i32.eqz (local.get $kind))
        (then
          ;; A string without escapes or control characters: its closing quote.
          (if (i32.ne (i32.load8_u (local.get $i)) (i32.const 0x22))
            (then (return (i32.const -1))))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (loop $chunk
            (if (i32.ge_u (local.get $i) (local.get $last)) (then (return (i32.const -1))))
            (local.set $m (call $stops (v128.load (local.get $i))))
            (if (i32.eqz (local.get $m))
              (then
                (local.set $i (i32.add (local.get $i) (i32.const 16)))
                (br $chunk))))
          (local.set $i (i32.add (local.get $i) (i32.ctz (local.get $m))))
          (if (i32.ge_u (local.get $i) (local.get $last)) (then (return (i32.const -1))))
          (if (i32.ne (i32.load8_u (local.get $i)) (i32.const 0x22))
            (then (return (i32.const -1))))
          (local.set $i (i32.add (local.get $i) (i32.const 1))))
        (else
          (if (i32.eq (local.get $kind) (i32.const 1))
            (then
              (local.set $i (call $numberEnd (local.get $i)))
              (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (i32.const -1)))))
            (else
              ;; null, true: four bytes; false: five.
              (local.set $word (i32.load (local.get $i)))
              (if (i32.eq (local.get $kind) (i32.const 2))
                (then
                  (if (i32.ne (local.get $word) (i32.const 0x6c6c756e)) (then (return (i32.const -1))))
                  (local.set $i (i32.add (local.get $i) (i32.const 4))))
                (else
                  (if (i32.eq (local.get $kind) (i32.const 3))
                    (then
                      (if (i32.ne (local.get $word) (i32.const 0x65757274))
                        (then (return (i32.const -1))))
                      (local.set $i (i32.add (local.get $i) (i32.const 4))))
                    (else
                      (if (i32.or
                            (i32.ne (local.get $word) (i32.const 0x736c6166))
                            (i32.ne (i32.load8_u offset=4 (local.get $i)) (i32.const 0x65)))
                        (then (return (i32.const -1))))
                      (local.set $i (i32.add (local.get $i) (i32.const 5)))))))))))
      (local.set $e (i32.add (local.get $e) (i32.const 1)))
      (br $separator))
    (unreachable))

  ;; The bytes of $v that end a plain string: a quote, a backslash or a control character.
  (func $stops (param $v v128) (result i32)
    (i8x16.bitmask
      (v128.or
        (v128.or
          (i8x16.eq (local.get $v) (v128.const i8x16 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22))
          (i8x16.eq (local.get $v) (v128.const i8x16 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c)))
        (i8x16.lt_u (local.get $v) (v128.const i8x16 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20)))))

  (func $digit (param $c i32) (result i32)
    (i32.lt_u (i32.sub (local.get $c) (i32.const 0x30)) (i32.const 10)))

  ;; Where the number at $i ends, as json-bytes.ts's numberEndAt: -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?
  (func $numberEnd (param $i i32) (result i32)
    (local $c i32)
    (if (i32.eq (i32.load8_u (local.get $i)) (i32.const 0x2d))
      (then (local.set $i (i32.add (local.get $i) (i32.const 1)))))
    (local.set $c (i32.load8_u (local.get $i)))
    (if (i32.eq (local.get $c) (i32.const 0x30))
      (then (local.set $i (i32.add (local.get $i) (i32.const 1))))
      (else
        (if (i32.lt_u (i32.sub (local.get $c) (i32.const 0x31)) (i32.const 9))
          (then (local.set $i (call $digits (i32.add (local.get $i) (i32.const 1)))))
          (else (return (i32.const -1))))))
    (if (i32.eq (i32.load8_u (local.get $i)) (i32.const 0x2e))
      (then
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (if (i32.eqz (call $digit (i32.load8_u (local.get $i)))) (then (return (i32.const -1))))
        (local.set $i (call $digits (local.get $i)))))
    (local.set $c (i32.load8_u (local.get $i)))
    (if (i32.or (i32.eq (local.get $c) (i32.const 0x65)) (i32.eq (local.get $c) (i32.const 0x45)))
      (then
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (local.set $c (i32.load8_u (local.get $i)))
        (if (i32.or (i32.eq (local.get $c) (i32.const 0x2b)) (i32.eq (local.get $c) (i32.const 0x2d)))
          (then (local.set $i (i32.add (local.get $i) (i32.const 1)))))
        (if (i32.eqz (call $digit (i32.load8_u (local.get $i)))) (then (return (i32.const -1))))
        (local.set $i (call $digits (local.get $i)))))
    (local.get $i))

  ;; Past the digits at $i.
  (func $digits (param $i i32) (result i32)
    (block $done
      (loop $next
        (br_if $done (i32.eqz (call $digit (i32.load8_u (local.get $i)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $i))

  ;; Copies $n bytes from $from to $to, sixteen at a time; where the copy ends.
  (func $copy (param $to i32) (param $from i32) (param $n i32) (result i32)
    (local $k i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_s (local.get $k) (local.get $n)))
        (v128.store (i32.add (local.get $to) (local.get $k))
          (v128.load (i32.add (local.get $from) (local.get $k))))
        (local.set $k (i32.add (local.get $k) (i32.const 16)))
        (br $next)))
    (i32.add (local.get $to) (local.get $n)))

  ;; The place (separator $s, offset $offset) in the item matched last.
  (func $place (param $s i32) (param $offset i32) (result i32)
    (i32.add (i32.load offset=0x1400 (i32.shl (local.get $s) (i32.const 2))) (local.get $offset)))

  ;; Writes the item matched last at $out by the plan (0x2000 to $planEnd); where it ends.
  (func $write (param $out i32) (param $planEnd i32) (result i32)
    (local $p i32) (local $step i32) (local $from i32) (local $leaf i32)
    (local.set $p (i32.const 0x2000))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $p) (local.get $planEnd)))
        (local.set $step (i32.load (local.get $p)))
        (if (i32.eqz (local.get $step))
          (then
            ;; COPY: the body from one place to another.
            (local.set $from
              (call $place (i32.load offset=4 (local.get $p)) (i32.load offset=8 (local.get $p))))
            (local.set $out
              (call $copy (local.get $out) (local.get $from)
                (i32.sub
                  (call $place (i32.load offset=12 (local.get $p)) (i32.load offset=16 (local.get $p)))
                  (local.get $from)))))
          (else
            (if (i32.eq (local.get $step) (i32.const 1))
              (then
                ;; CONSTANT: bytes of the constants.
                (local.set $out
                  (call $copy (local.get $out)
                    (i32.add (i32.const 0xa000) (i32.load offset=4 (local.get $p)))
                    (i32.load offset=8 (local.get $p)))))
              (else
                ;; QUOTED: a leaf's text in quotes.
                (local.set $leaf (i32.load offset=4 (local.get $p)))
                (local.set $from (call $place (local.get $leaf) (i32.load offset=8 (local.get $p))))
                (i32.store8 (local.get $out) (i32.const 0x22))
                (local.set $out
                  (call $copy (i32.add (local.get $out) (i32.const 1)) (local.get $from)
                    (i32.sub (call $place (i32.add (local.get $leaf) (i32.const 1)) (i32.const 0))
                      (local.get $from))))
                (i32.store8 (local.get $out) (i32.const 0x22))
                (local.set $out (i32.add (local.get $out) (i32.const 1)))))))
        (local.set $p (i32.add (local.get $p) (i32.const 20)))
        (br $next)))
    (local.get $out))

  ;; Matches and writes the items from $i (an item's `{`) while they have the shape, joined by
  ;; commas (`},{`), each at most $extra bytes longer written than read, the output from $out to
  ;; $outEnd; it stops before an item there is no room for. Returns how many were written; $pos
  ;; is then after the last one's `}` ($i when none), $out where the output ends.
  (func (export "run")
    (param $i i32) (param $last i32) (param $out i32) (param $outEnd i32)
    (param $leaves i32) (param $planEnd i32) (param $extra i32) (result i32)
    (local $end i32) (local $count i32) (local $start i32)
    (local.set $start (local.get $i))
    (block $stop
      (loop $item
        (local.set $end (call $match (local.get $start) (local.get $last) (local.get $leaves)))
        (br_if $stop (i32.lt_s (local.get $end) (i32.const 0)))
        (if (i32.gt_s
              (i32.add (i32.add (local.get $out) (i32.sub (local.get $end) (local.get $start)))
                (i32.add (local.get $extra) (i32.const 1)))
              (local.get $outEnd))
          (then (br $stop)))
        (if (local.get $count)
          (then
            (i32.store8 (local.get $out) (i32.const 0x2c))
            (local.set $out (i32.add (local.get $out) (i32.const 1)))))
        (local.set $out (call $write (local.get $out) (local.get $planEnd)))
        (local.set $count (i32.add (local.get $count) (i32.const 1)))
        (local.set $i (local.get $end))
        ;; The next item, when a comma and its `{` follow at once.
        (br_if $stop (i32.ne (i32.load16_u (local.get $end)) (i32.const 0x7b2c)))
        (local.set $start (i32.add (local.get $end) (i32.const 1)))
        (br $item)))
    (global.set $pos (local.get $i))
    (global.set $out (local.get $out))
    (local.get $count))
)
