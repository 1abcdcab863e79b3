// Field: a value pushed in any pieces is the trimmed whole, and the deltas it hands out add up to
// it; pieces end in ASCII blanks, in blanks past ASCII that JavaScript trims (U+00A0, U+2028,
// U+3000, U+FEFF) and in characters it does not (U+200B, U+0085), so every way out of the trim
// is taken; entities (`&amp;`) make a decoded value differ from the text it came from.
import t from 'tap'
import fc from 'fast-check'
import { Field } from '../lib/parse/field.js'
import { Rope } from '../lib/parse/rope.js'
import { cutAt } from './helpers/arb.js'

const alphabet = ['a', 'Z', '<', '/', '&', ';', '&amp;', '&lt;', ' ', '\t', '\n', '\r', '\v', '\f', '\u00a0', '\u2028', '\u3000', '\ufeff', '\u200b', '\u0085', '\u0001', 'é', '😀']
const text = fc.array(fc.constantFrom(...alphabet), { maxLength: 60 }).map((cs) => cs.join(''))

/** Cuts `s` at the given positions (sorted, deduplicated, within bounds). */

t.test('any pieces: value = the whole text trimmed, deltas add up to core, core is a prefix of every later core (property)', (t) => {
  fc.assert(fc.property(text, fc.array(fc.nat(), { maxLength: 12 }), (s, at) => {
    const f = new Field()
    let taken = ''
    let core = ''
    for (const piece of cutAt(s, at)) {
      f.push(piece)
      taken += f.take()
      if (!f.core.startsWith(core)) return false
      core = f.core
      if (taken !== core || f.coreLength !== core.length) return false
    }
    return f.value === s.trim() && f.core === s.trim()
  }), { numRuns: 2000 })
  t.end()
})

t.test('pieces given with their offset in the kept text (pushAt) give what push gives, read or not, mixed with push (property)', (t) => {
  // a stream keeps the text in a Rope (src) and a value stays a run of it until read
  const how = fc.array(fc.record({ at: fc.boolean(), read: fc.nat(4) }), { minLength: 1, maxLength: 14 })
  fc.assert(fc.property(text, fc.string({ maxLength: 5 }), fc.array(fc.nat(), { maxLength: 12 }), how, fc.boolean(), (s, before, cuts, steps, decode) => {
    const src = new Rope()
    src.push(before) // the value starts somewhere in the text, not at 0
    const plain = new Field(decode)
    const lazy = new Field(decode, src)
    let k = 0
    for (const piece of cutAt(s, cuts)) {
      const step = steps[k++ % steps.length]!
      const at = src.length
      src.push(piece)
      plain.push(piece)
      if (step.at) lazy.pushAt(piece, at)
      else lazy.push(piece)
      // reads between pieces: some copy the run into the field, some only measure it
      if (lazy.coreLength !== plain.coreLength || lazy.trailing !== plain.trailing) return false
      if (step.read === 0 && lazy.core !== plain.core) return false
      if (step.read === 1 && lazy.take() !== plain.take()) return false
      if (step.read === 2 && lazy.value !== plain.value) return false
      if (step.read === 3 && lazy.ext(' x') !== plain.ext(' x')) return false
      if (step.read === 4) {
        // runs of the value, cut from the kept text while the value is one run of it
        const n = plain.core.length
        for (const [a, b] of [[0, n], [1, n - 1], [n >> 1, n + 3], [n, n]] as const) {
          if (lazy.coreSlice(a, b) !== plain.core.slice(a, b)) return false
        }
      }
    }
    return lazy.take() === plain.take() && lazy.value === plain.value && lazy.core === plain.core
  }), { numRuns: 3000 })
  t.end()
})

t.test('pieces that end in blanks keep them for the text that follows', (t) => {
  const f = new Field()
  for (const piece of ['  a ', '\u00a0', '\n', 'b\u3000', '\u200b', ' c\u2028']) f.push(piece)
  t.equal(f.value, 'a \u00a0\nb\u3000\u200b c')
  t.equal(f.trailing, '\u2028', 'the last blank waits for more text')
  t.end()
})
