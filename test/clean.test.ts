// SPEC 7.1: display cleaning of text blocks, against the original's outputs (the suite's own copy).
import t from 'tap'
import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import { cleanDisplayText } from '../lib/index.js'
import { addsVerbatim, TextCleaner } from '../lib/present/clean.js'

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

/**
 * Appends `text` to a TextCleaner in pieces of the given sizes (in turn) and checks, after each,
 * that its display is what cleanDisplayText gives for all the text so far.
 */
function cleansAsWhole(text: string, sizes: readonly number[]): boolean {
  const c = new TextCleaner()
  c.reset('')
  let content = ''
  for (let i = 0, k = 0; i < text.length; k++) {
    const piece = text.slice(i, i + sizes[k % sizes.length]!)
    i += piece.length
    c.append(piece)
    content += piece
    if (c.display() !== cleanDisplayText(content, true)) return false
  }
  return true
}

t.test('TextCleaner: a `<` that starts no stripped tag (`a < b`, `<div>`, `</p>`) takes the prose path, with the same result (property)', async (t) => {
  // stray `<` as prose has them, next to tags, their halves and the characters that decide
  // whether a `<` may start one (`t`, `f`, `/`), cut anywhere: the join case of SPEC 7.1 too
  // (`<function_ </think>calls>`: a removal makes a tag that a later pass removes)
  const piece = fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom('a < b', '<div>', '</p>', '<=', 'x<y', '<!-- n -->', '<T>', '<<', '< ', '</ ', '<//', '<_', '<1') },
    { weight: 3, arbitrary: fc.constantFrom('<thinking>', '</thinking>', '<think>', '</think>', '<function_calls>', '</function_calls>', '<function_', 'calls>', '<', '</', '<t', '</f') },
    { weight: 4, arbitrary: fc.constantFrom(' ', '\n', '\t', '  ', 't', 'f', '/', 'hink>', 'word', '.') },
  )
  fc.assert(fc.property(fc.array(piece, { minLength: 1, maxLength: 50 }), fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 8 }), (parts, sizes) => {
    return cleansAsWhole(parts.join(''), sizes)
  }), { numRuns: 3000 })
  const c = new TextCleaner()
  c.reset('')
  for (const piece of ['See a <b and ', '<function_ ', '</think>', 'calls> done']) c.append(piece)
  t.equal(c.display(), 'See a <b and done', 'the halves joined by the `</think>` pass are removed by the `<function_calls>` pass')
  t.equal(c.display(), cleanDisplayText('See a <b and <function_ </think>calls> done', true))
})

t.test('TextCleaner: blanks in pieces of one to three characters, with the tags whose passes strip the blanks before them (property)', async (t) => {
  // the plain path holds up to three trailing blanks back (trailWs) and reads them from the piece
  // and from what it held, not from their join: a blank piece after held blanks, then a tag,
  // checks both halves of that read
  const piece = fc.constantFrom(' ', '\n', '\t', 'w', 'a', '<', '</', '<thinking>', '</thinking>', '<function_calls>', '</function_calls>')
  fc.assert(fc.property(fc.array(piece, { minLength: 1, maxLength: 30 }), fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 4 }), (parts, sizes) => {
    return cleansAsWhole(parts.join(''), sizes)
  }), { numRuns: 20000 })
  const c = new TextCleaner()
  c.reset('')
  for (const ch of '  </thinking></function_calls>') c.append(ch)
  t.equal(c.display(), cleanDisplayText('  </thinking></function_calls>', true), 'two blanks held, one a piece, then the tags')
})

t.test('TextCleaner.sameText tells whether two displays of one block are the same text, as comparing them does (property)', async (t) => {
  // displays that stay the same while a tag is held (`x</read_file>` in 1-byte pieces) were
  // compared whole after every update; sameText answers from the few characters between them
  const piece = fc.constantFrom('x', ' ', '\n', '<', '</', '<t', '<thinking>', '</thinking>', '</read_file>', '<function_calls>', 'word', '  ', 'a < b', '<div>', '`')
  fc.assert(fc.property(fc.array(piece, { minLength: 1, maxLength: 40 }), fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 6 }), fc.nat(3), (parts, sizes, resets) => {
    const text = parts.join('')
    const c = new TextCleaner()
    c.reset('')
    const shown: { text: string; gen: number; from: number; to: number; tail: string }[] = []
    for (let i = 0, k = 0; i < text.length; k++) {
      const p = text.slice(i, i + sizes[k % sizes.length]!)
      i += p.length
      if (resets > 0 && k % 7 === 6) c.reset(text.slice(0, i))
      else c.append(p)
      const d = c.display()
      // against every earlier display of the same length
      for (const s of shown) {
        if (s.text.length !== d.length) continue
        const same = c.sameText(s.gen, s.from, s.to, s.tail)
        if (same !== null && same !== (s.text === d)) return false
      }
      shown.push({ text: d, gen: c.generation, from: c.headFrom, to: c.headTo, tail: c.tailPart })
    }
    return true
  }), { numRuns: 2000 })
  // the case that was quadratic: each display is the same text as the one before, and known so
  const c = new TextCleaner()
  c.reset('')
  let answered = 0
  let prev = { gen: -1, from: 0, to: 0, tail: '', text: '' }
  for (const ch of 'x</read_file>'.repeat(3)) {
    c.append(ch)
    const d = c.display()
    if (d.length === prev.text.length) {
      const same = c.sameText(prev.gen, prev.from, prev.to, prev.tail)
      t.equal(same ?? d === prev.text, d === prev.text)
      if (same !== null) answered++
    }
    prev = { gen: c.generation, from: c.headFrom, to: c.headTo, tail: c.tailPart, text: d }
  }
  t.ok(answered >= 30, `answered without comparing the texts (${answered} times)`)
})

t.test('addsVerbatim: text it takes, appended (or appendVerbatim) where the cleaner appends verbatim, adds itself to the display as it is (property)', async (t) => {
  // the Display keeps such text back from the cleaner (its lag) and shows the last display plus
  // the text: that is right only if the pure cleaning agrees, and the cleaner stays verbatim
  const piece = fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom('a <= b', '<br>', '</p> ', '<!-- n -->', 'Map<string, T>', '1 < 2', '<div>x', 'x<y', '<T>', '<<', '< ', '</ ', '<//', '<_', '<1', 'a < b') },
    { weight: 3, arbitrary: fc.constantFrom('<thinking>', '</thinking>', '<think>', '</think>', '<function_calls>', '<function_', 'calls>', '<', '</', '<t', '</f', '<b', '```', '```xml') },
    { weight: 4, arbitrary: fc.constantFrom(' ', '\n', '\t', '  ', 't', 'f', '/', '>', 'hink>', 'word', '.', 'é') },
  )
  let taken = 0
  fc.assert(fc.property(fc.array(piece, { maxLength: 30 }), fc.array(piece, { minLength: 1, maxLength: 4 }), (before, added) => {
    const content = before.join('')
    const text = added.join('')
    const c = new TextCleaner()
    c.reset(content)
    if (!c.appendsVerbatim || !addsVerbatim(text)) return true
    if (text.includes('<')) taken++
    const shown = c.display()
    c.append(text)
    // appendVerbatim, which takes such text without reading it, gives the same
    const v = new TextCleaner()
    v.reset(content)
    v.appendVerbatim(text)
    return shown === cleanDisplayText(content, true) && c.display() === shown + text
      && cleanDisplayText(content + text, true) === shown + text && c.appendsVerbatim
      && v.display() === shown + text && v.appendsVerbatim
  }), { numRuns: 5000 })
  t.ok(taken > 200, `texts with \`<\` were taken and checked (${taken})`)
  for (const s of ['prose', 'a <= b', '<br> next', 'List<List<int>> x', '<!-- note -->', '</path> without', '1 < 2']) t.ok(addsVerbatim(s), `takes ${JSON.stringify(s)}`)
  for (const s of ['see <b', 'a < b', '<thinking> x', 'x </think>', 'end <', 'end </', '<function_calls>', 'x <t y>']) t.notOk(addsVerbatim(s), `leaves ${JSON.stringify(s)} to the cleaner`)
})
