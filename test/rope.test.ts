// Rope and TextCleaner over long inputs: batches of 128 pieces, reads between pushes, and
// resets, against plain concatenation and cleanDisplayText.
import t from 'tap'
import fc from 'fast-check'
import { Rope } from '../lib/parse/rope.js'
import { TextCleaner, cleanDisplayText } from '../lib/present/clean.js'

type Step = { kind: 'push'; piece: string } | { kind: 'read' } | { kind: 'reset'; value: string } | { kind: 'slice'; from: number; to: number }

/** Runs the steps on a Rope and on a plain string side by side: false at the first difference. */
function agrees(initial: string, steps: readonly Step[], sliceable = true): boolean {
  const g = new Rope(initial, sliceable)
  let want = initial
  for (const s of steps) {
    if (s.kind === 'push') {
      g.push(s.piece)
      want += s.piece
    } else if (s.kind === 'reset') {
      g.reset(s.value)
      want = s.value
    } else if (s.kind === 'slice') {
      // ranges near the end (the open batch) as often as anywhere, some past it
      const n = want.length + 2
      const a = s.from % 2 === 0 ? s.from % n : Math.max(0, n - 1 - (s.from % 300))
      const b = a + (s.to % 600) - 20
      if (g.slice(a, b) !== want.slice(a, Math.max(a, b))) return false
    } else if (g.value !== want) return false
    if (g.length !== want.length) return false
  }
  return g.value === want && (!sliceable || (g.slice(0, want.length) === want && g.slice(-5, want.length + 5) === want))
}

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 20, arbitrary: fc.string({ maxLength: 40 }).map((piece) => ({ kind: 'push' as const, piece })) },
  { weight: 4, arbitrary: fc.constant({ kind: 'read' as const }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map((value) => ({ kind: 'reset' as const, value })) },
)

t.test('value is the concatenation of everything appended since the last reset (property)', (t) => {
  fc.assert(fc.property(fc.string({ maxLength: 10 }), fc.array(step, { minLength: 300, maxLength: 1200, size: 'max' }), (i, s) => agrees(i, s)), { numRuns: 60 })
  t.end()
})

t.test('a Rope made to be read whole (sliceable: false) has the same value and length; slice throws (property)', (t) => {
  fc.assert(fc.property(fc.string({ maxLength: 10 }), fc.array(step, { minLength: 300, maxLength: 1200, size: 'max' }), (initial, steps) => agrees(initial, steps, false)), { numRuns: 40 })
  const g = new Rope('ab', false)
  g.push('c')
  t.throws(() => g.slice(0, 1), /read whole/)
  t.end()
})

t.test('slice(from, to) is value.slice(from, to) after any pushes and resets, within and across batches (property)', (t) => {
  const sliceStep: fc.Arbitrary<Step> = fc.oneof(
    { weight: 20, arbitrary: step },
    { weight: 6, arbitrary: fc.tuple(fc.nat(), fc.nat()).map(([from, to]) => ({ kind: 'slice' as const, from, to })) },
  )
  fc.assert(fc.property(fc.string({ maxLength: 10 }), fc.array(sliceStep, { minLength: 300, maxLength: 1500, size: 'max' }), (i, s) => agrees(i, s)), { numRuns: 80 })
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

t.test('long values: pieces of 1 to 6000 characters (and 200k at once), reads and resets (property)', (t) => {
  // the scale sets how long a batch of 128 pieces is (from ~25k characters to ~770k)
  const ops = fc.integer({ min: 0, max: 2 }).chain((k) => {
    const max = [400, 2000, 6000][k]!
    const piece = fc.oneof(
      { weight: 60, arbitrary: fc.integer({ min: 1, max }).map((n) => 'abcdefgh'.repeat(Math.ceil(n / 8)).slice(0, n)) },
      { weight: 1, arbitrary: fc.constant('x'.repeat(200_000)) },
      { weight: 1, arbitrary: fc.constant('é😀') },
    )
    const op = fc.oneof(
      { weight: 60, arbitrary: piece.map((p) => ({ push: p })) },
      { weight: 2, arbitrary: fc.constant({ read: true }) },
      { weight: 1, arbitrary: fc.constant({ reset: 'r' }) },
    )
    return fc.array(op, { minLength: 500, maxLength: 2500 })
  })
  const asStep = (o: { push?: string; read?: boolean; reset?: string }): Step =>
    o.push !== undefined ? { kind: 'push', piece: o.push } : o.reset !== undefined ? { kind: 'reset', value: o.reset } : { kind: 'read' }
  fc.assert(fc.property(ops, (list) => agrees('', list.map(asStep))), { numRuns: 30 })
  t.end()
})

t.test('a value read along 40 000 pushes of 16 characters (312 batches) stays equal', (t) => {
  const g = new Rope('start ')
  let want = 'start '
  let bad = 0
  for (let i = 0; i < 40_000; i++) {
    const piece = `p${String(i).padStart(6, '0')} 89abcdef`.slice(0, 16)
    g.push(piece)
    want += piece
    // reading every time would make this test quadratic in the comparison, not in the Rope
    if (i % 997 === 0 && g.value !== want) bad++
  }
  t.equal(bad, 0, 'the reads equal the concatenation')
  t.equal(g.value, want)
  t.equal(g.length, want.length)
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

// Texts rich in what the cleaner must get right: tags to strip, their prefixes and halves (so that
// a removal joins two halves into a tag a later pass removes), partial tags and stray `<`, tag
// names followed by white space, `>`, and white space of every kind next to all of them.
const rich = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('<thinking>', '</thinking>', '<think>', '</think>', '<function_calls>', '</function_calls>') },
  { weight: 6, arbitrary: fc.constantFrom('<', '</', '<th', '</thin', '<function_', 'calls>', 'ing>', 'k>', '<b', '< b', '</ x', '<a b', '>', '/', '<<') },
  { weight: 6, arbitrary: fc.constantFrom(' ', '\n', '\t', '\u00a0', '\u2028', '\u3000', '\ufeff', '  \n') },
  { weight: 4, arbitrary: fc.constantFrom('word', 'and', 'x', '_', 'See', 'A') },
  { weight: 2, arbitrary: fc.constantFrom('.', '1', 'é', '😀', '-', '```xml') },
)

/** `text` cut at random points (pieces of 1 to 12 characters, surrogate pairs possibly split; a size 0 adds an empty append first). */
function cutsOf(text: string, sizes: number[]): string[] {
  const out: string[] = []
  let i = 0
  for (let k = 0; i < text.length; k++) {
    let n = sizes.length === 0 ? 1 : sizes[k % sizes.length]!
    if (n === 0) {
      out.push('')
      n = 1
    }
    out.push(text.slice(i, i + n))
    i += n
  }
  return out
}

t.test('TextCleaner equals cleanDisplayText of every prefix, on texts rich in `<`, tags and white space, cut anywhere (property)', (t) => {
  fc.assert(fc.property(
    fc.array(rich, { minLength: 1, maxLength: 60 }),
    fc.array(fc.integer({ min: 0, max: 12 }), { maxLength: 20 }),
    fc.array(rich, { maxLength: 6 }),
    (parts, sizes, initial) => {
      const c = new TextCleaner()
      let content = initial.join('')
      c.reset(content)
      if (c.display() !== cleanDisplayText(content, true)) return false
      for (const piece of cutsOf(parts.join(''), sizes)) {
        c.append(piece)
        content += piece
        if (c.display() !== cleanDisplayText(content, true)) return false
      }
      return true
    },
  ), { numRuns: 3000 })
  t.end()
})

t.test('TextCleaner: a display may be skipped between appends, and a reset starts over (property)', (t) => {
  const op = fc.oneof(
    { weight: 8, arbitrary: fc.array(rich, { minLength: 1, maxLength: 4 }).map((a) => ({ append: a.join('') })) },
    { weight: 4, arbitrary: fc.constant({ read: true }) },
    { weight: 1, arbitrary: fc.array(rich, { maxLength: 4 }).map((a) => ({ reset: a.join('') })) },
  )
  fc.assert(fc.property(fc.array(op, { minLength: 1, maxLength: 80 }), (ops) => {
    const c = new TextCleaner()
    let content = ''
    c.reset('')
    for (const o of ops) {
      if ('append' in o) {
        c.append(o.append)
        content += o.append
      } else if ('reset' in o) {
        c.reset(o.reset)
        content = o.reset
      } else if (c.display() !== cleanDisplayText(content, true)) return false
    }
    return c.display() === cleanDisplayText(content, true)
  }), { numRuns: 1500 })
  t.end()
})

t.test('TextCleaner: equal identities (headKind, headVersion, tailPart) mean equal texts (property)', (t) => {
  fc.assert(fc.property(fc.array(rich, { minLength: 1, maxLength: 80 }), (parts) => {
    const c = new TextCleaner()
    c.reset('')
    const seen = new Map<string, string>()
    for (const p of parts) {
      c.append(p)
      const d = c.display()
      const key = `${c.headKind}/${c.headVersion}/${c.tailPart}`
      const before = seen.get(key)
      if (before !== undefined && before !== d) return false
      seen.set(key, d)
    }
    return true
  }), { numRuns: 1500 })
  t.end()
})
