// Rope and TextCleaner over long inputs: batches of 128 pieces, reads between pushes, and
// resets, against plain concatenation and cleanDisplayText.
import t from 'tap'
import fc from 'fast-check'
import { Rope } from '../lib/parse/rope.js'
import { TextCleaner, cleanDisplayText } from '../lib/present/clean.js'

type Step = { kind: 'push'; piece: string } | { kind: 'read' } | { kind: 'reset'; value: string }

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 20, arbitrary: fc.string({ maxLength: 40 }).map((piece) => ({ kind: 'push' as const, piece })) },
  { weight: 4, arbitrary: fc.constant({ kind: 'read' as const }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map((value) => ({ kind: 'reset' as const, value })) },
)

t.test('value is the concatenation of everything appended since the last reset (property)', (t) => {
  fc.assert(fc.property(fc.string({ maxLength: 10 }), fc.array(step, { minLength: 300, maxLength: 1200, size: 'max' }), (initial, steps) => {
    const g = new Rope(initial)
    let want = initial
    for (const s of steps) {
      if (s.kind === 'push') {
        g.push(s.piece)
        want += s.piece
      } else if (s.kind === 'reset') {
        g.reset(s.value)
        want = s.value
      } else if (g.value !== want) return false
      if (g.length !== want.length) return false
    }
    return g.value === want
  }), { numRuns: 60 })
  t.end()
})

t.test('a long value read after every push, across many batches', (t) => {
  const g = new Rope()
  let want = ''
  let bad = 0
  for (let i = 0; i < 5000; i++) {
    const piece = `piece ${i} ` + 'é'.repeat(i % 5)
    g.push(piece)
    want += piece
    if (g.value !== want) bad++
  }
  t.equal(bad, 0, 'every read equals the concatenation')
  // 5000 pushes: 39 batches of 128 and a part batch
  g.push('')
  t.equal(g.value, want, 'an empty piece changes nothing')
  t.end()
})

t.test('TextCleaner equals cleanDisplayText after every append, on long texts (property)', (t) => {
  const piece = fc.oneof(
    fc.constantFrom('<thinking>', '</thinking>', '<think>', '\n</think>', '<function_calls>', '<', '</', '<read_fi', '1 < 2', '```xml'),
    fc.constantFrom(' ', '\n', '  ', 'plan', 'x.y', '. ', 'é', '😀', '-', '3', 'word '.repeat(20)),
  )
  fc.assert(fc.property(fc.array(piece, { minLength: 150, maxLength: 600, size: 'max' }), fc.constantFrom('', ' ', '\n  '), (pieces, lead) => {
    const c = new TextCleaner()
    c.reset(lead)
    let content = lead
    for (const p of pieces) {
      c.append(p)
      content += p
      if (c.display() !== cleanDisplayText(content, true)) return false
    }
    return true
  }), { numRuns: 40 })
  t.end()
})
