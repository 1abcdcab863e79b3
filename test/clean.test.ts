// SPEC 7.1: display cleaning of text blocks, against the original's outputs (the suite's own copy).
import t from 'tap'
import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import { cleanDisplayText } from '../lib/index.js'

const CORPUS = new URL('./fixtures/conformance/present-text.cline.jsonl', import.meta.url)
interface Case { content: string; partial: boolean; expected: string }
const cases = readFileSync(CORPUS, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Case)

t.equal(cases.length, 40, 'the whole corpus is read')
let failed = 0
for (const c of cases) {
  const got = cleanDisplayText(c.content, c.partial)
  if (got !== c.expected) {
    failed++
    t.fail(`${JSON.stringify(c.content)} partial=${c.partial}`, { got, expected: c.expected })
  }
}
t.equal(failed, 0, `all ${cases.length} present-text cases match exactly`)

t.test('text without tags or fences is shown as it is', async (t) => {
  fc.assert(fc.property(fc.string().filter((s) => !s.includes('<') && !s.includes('```')), fc.boolean(), (s, partial) => {
    return cleanDisplayText(s, partial) === s
  }))
})

t.test('the stripped tags never survive, whatever surrounds them', async (t) => {
  const piece = fc.oneof(
    fc.constantFrom('<thinking>', '</thinking>', '<think>', '</think>', '<function_calls>', '</function_calls>'),
    fc.constantFrom(' ', '\n', 'a', 'plan', 'x y'),
  )
  fc.assert(fc.property(fc.array(piece, { maxLength: 12 }), fc.boolean(), (parts, partial) => {
    const out = cleanDisplayText(parts.join(''), partial)
    return !/<\/?(thinking|think|function_calls)>/.test(out)
  }))
})

t.test('each tag takes exactly one adjacent white-space character', async (t) => {
  t.equal(cleanDisplayText('a\n\n<thinking>\n\nb\n\n</thinking>\n\nc', false), 'a\n\n\nb\n\n\nc')
  t.equal(cleanDisplayText('<function_calls>  x  </function_calls>', true), ' x ')
})

t.test('the fence opener is cut only on complete blocks, trailing space too', async (t) => {
  t.equal(cleanDisplayText('See:\n```json  \n', false), 'See:\n')
  t.equal(cleanDisplayText('See:\n```json  \n', true), 'See:\n```json  \n')
  t.equal(cleanDisplayText('```xml\n<x/>\n```', false), '```xml\n<x/>\n```', 'a closed fence stays')
})
