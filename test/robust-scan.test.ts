// The robust profile's one-shot fast paths, each against an independent rule: lenient text mode's
// candidates (indexOf, the pair table after blanks, anchors or the regex in '<'-dense runs) against
// the lenient tag regex; lenient tool mode (candidates from the pair table, read whole by the tool
// scanner) against the per-'<' path that diagnostics run; decodeEntities against a regex of the
// five named entities and numeric references.
import t from 'tap'
import fc from 'fast-check'
import { parseAssistantMessage, parseWithDiagnostics, defineDialect } from '../lib/index.js'
import { TagSet } from '../lib/parse/tags.js'
import { TagReader } from '../lib/parse/tag-reader.js'
import { decodeEntities } from '../lib/parse/entities.js'
import { strip, counter, fixedChunks, streamedBlocks as streamed } from './helpers/arb.js'


t.test('lenient text candidates are exactly where the lenient tag regex matches, in sparse and in <-dense text', async (t) => {
  // one-character names (a blank may follow them), names sharing their first two characters
  // (one pair lists several), names that are prefixes of one another, a name whose first two
  // characters collide with others' in the table (its keys are taken & 127)
  const pool = ['a', 'ab', 'abc', 'think', 'thinking', 'read_file', 'replace', 'x', 'e\u00e9', 'e\u0165', 'new_task']
  const name = fc.constantFrom(...pool)
  // runs around the regex's bound on blanks (the longest name + 65: 66 to 74 here)
  const blanks = fc.oneof(
    fc.constantFrom('', ' ', '\t', ' \t ', ' '.repeat(40), ' '.repeat(120)),
    fc.integer({ min: 64, max: 76 }).map((n) => ' '.repeat(n)),
  )
  const piece = fc.oneof(
    fc.tuple(blanks, name, blanks).map(([a, n, b]) => `<${a}${n}${b}>`),
    fc.tuple(blanks, name, blanks).map(([a, n, b]) => `<${a}/${b}${n}>`),
    fc.tuple(blanks, name).map(([a, n]) => `<${a}${n}`),
    // '<'-dense runs: eight '<' close together hand the search to the anchors or the regex
    fc.constantFrom('<', '<<', '<<<<<<<<', '< ', 'a<b', '<a', '<ab', '<th', '<re', '< a ', '<\t', '>', ' ', '_', 'k', 'x', '\n', 'thinking'),
  )
  fc.assert(fc.property(fc.uniqueArray(name, { minLength: 1, maxLength: 5 }), fc.array(piece, { maxLength: 60 }), fc.nat(300), (names, parts, pad) => {
    const tags = new TagSet()
    for (const x of names) tags.add(x)
    tags.compile()
    // a filler puts some searches in long windows (anchors after a dense run), some in short ones
    const w = parts.join('') + '.'.repeat(pad)
    const reader = new TagReader(true, false, tags, new TagSet())
    const re = tags.lenient
    const rule = (from: number): number => {
      re.lastIndex = from
      const m = re.exec(w)
      return m === null ? -1 : m.index
    }
    reader.newWindow()
    for (let from = 0; from <= w.length; from++) {
      const s = reader.nextCandidate(w, from, tags, true)
      t.equal(s === w.length ? -1 : s, rule(from), `${JSON.stringify(names)} ${JSON.stringify(w)} from ${from}`)
    }
  }), { numRuns: 150 })
})

t.test('lenient tool mode: candidates from the pair table give the blocks of the per-< path', async (t) => {
  // parseWithDiagnostics reads every '<' in a tool (each may be dropped text to report): an
  // independent scan whose blocks must be the same
  const junk = fc.constantFrom(
    '<', '< ', '</', '</ ', '< /', '<pat', '<path', '< path', '</ path', '</pathx>', '<paths>', '<path x>', '< / read_file',
    '</read_file x>', '<<<<<<<<<', '<p<p<p<p<p<p<p<p<p', 'x', ' ', '\n', '>', '/', '<command>', '< content >', '<\t/\tread_file\t>',
  )
  const value = fc.constantFrom('src/a.ts', 'a < b', 'x</pat', '', '&amp; &lt;', ' y ')
  const param = fc.tuple(fc.constantFrom('<path>', '< path >', '<\tpath>', '<command>'), value, fc.constantFrom('</path>', '</ path >', '< / path>', '</command>'))
    .map(([o, v, c]) => o + v + c)
  const body = fc.array(fc.oneof(junk, param), { maxLength: 24 }).map((a) => a.join(''))
  const close = fc.constantFrom('</read_file>', '</ read_file >', '< /read_file>', '')
  fc.assert(fc.property(body, close, fc.constantFrom('', ' after <read_file><path>b</path></read_file>'), (b, c, tail) => {
    const msg = `Hi <read_file>${b}${c}${tail}`
    const o = { profile: 'robust' as const, idGenerator: counter() }
    for (const final of [false, true]) {
      const want = strip(parseWithDiagnostics(msg, { ...o, idGenerator: counter(), final }).blocks)
      t.same(strip(parseAssistantMessage(msg, { ...o, idGenerator: counter(), final })), want, JSON.stringify(msg))
    }
    t.same(streamed(fixedChunks(msg, 5), { profile: 'robust' }), strip(parseAssistantMessage(msg, { ...o, idGenerator: counter(), final: true })))
  }), { numRuns: 400 })
})

t.test('lenient tool mode in a dialect with one-character names and shared first characters', async (t) => {
  const d = defineDialect({ tools: ['t', 'tt', 'tx'], params: ['p', 'pq', 'q'], greedy: {} })
  const o = { dialect: d, lenientTags: true, idGenerator: counter() }
  const cases: [string, unknown[]][] = [
    ['<t>< p >1</ p ><pq>2</pq><q >3</q ></ t >', [{ type: 'tool_use', name: 't', params: { p: '1', pq: '2', q: '3' }, partial: false }]],
    ['<tt><p x>y</p><p\t>v</p></tt> z', [{ type: 'tool_use', name: 'tt', params: { p: 'v' }, partial: false }, { type: 'text', content: 'z', partial: false }]],
    ['<tx><pqr>1</pqr>< / tx>', [{ type: 'tool_use', name: 'tx', params: {}, partial: false }]],
  ]
  for (const [msg, want] of cases) {
    t.same(strip(parseAssistantMessage(msg, { ...o, idGenerator: counter(), final: true })), want, msg)
    t.same(strip(parseWithDiagnostics(msg, { ...o, idGenerator: counter(), final: true }).blocks), want, `${msg} (per-< path)`)
  }
})

t.test('decodeEntities decodes exactly the five named entities and valid numeric references', async (t) => {
  // the rule as a regex: a named entity, or a numeric reference of 1-8 digits whose code point
  // is a scalar value other than 0; anything else stays as it is
  const rule = (s: string): string => s.replace(/&(amp|lt|gt|quot|apos|#[0-9]{1,8}|#[xX][0-9a-fA-F]{1,8});/g, (m, body: string) => {
    const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }
    if (Object.hasOwn(named, body)) return named[body]!
    const n = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10)
    return n === 0 || n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff) ? m : String.fromCodePoint(n)
  })
  const part = fc.constantFrom('&', '&&', ';', 'amp', 'AMP', 'lt', 'quot', 'apos', 'ap', '#', '#x', '#X', '0', '65', '1114111', '1114112', '55296', 'd800', '1F600',
    '123456789', 'x', 'a', ' ', '&amp;', '&#65;', '&#x42;', '&#0;', '&1', '& ', 'é')
  fc.assert(fc.property(fc.array(part, { maxLength: 40 }).map((a) => a.join('')), (s) => {
    t.equal(decodeEntities(s), rule(s), JSON.stringify(s))
  }), { numRuns: 3000 })
  // code's '&&' and '&1' are passed without a ';' search, an entity after them is still found
  t.equal(decodeEntities('a && b 2>&1 &&&amp; &#x3C;'), 'a && b 2>&1 &&& <')
})
