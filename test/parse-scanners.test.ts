// The scanners of issue 16, each against the rule it must keep: the tag regexes (text and tool
// mode jump from tag to tag), the lenient closing tag found by its name in a long value, the
// fence scanner's look-back from a backtick instead of a stop at every newline, and a cut tag
// looked for only at the window's end. Each checks a one-shot parse (long windows: the fast
// paths) against streams in small chunks (short windows: the per-'<' paths) and against the rule.
import t from 'tap'
import fc from 'fast-check'
import { parseAssistantMessage, parseWithDiagnostics, defineDialect, clineDialect, type Block } from '../lib/index.js'
import { Engine } from '../lib/parse/engine.js'
import { resolveOptions } from '../lib/parse/options.js'
import { LENIENT_SLACK, TagSet } from '../lib/parse/tags.js'
import { TagReader } from '../lib/parse/tag-reader.js'
import { DiffSession } from '../lib/streams/session.js'
import { strip, counter, fixedChunks, streamedBlocks as streamed } from './helpers/arb.js'

const whole = (s: string, o: object): unknown[] => strip(parseAssistantMessage(s, { idGenerator: counter(), ...o }))


const text = (content: string, partial = false) => ({ type: 'text', content, partial })
const tool = (name: string, params: Record<string, string>, partial = false) => ({ type: 'tool_use', name, params, partial })

t.test('lenientTags: a closing tag in a long value is found by its name, blanks and all', async (t) => {
  // fragments that hold the name without forming its closing tag: the name alone, after a slash
  // with no '<', after '<' with no slash, or a closing tag of another name
  const noise = ['path', 'x/path', '/ path', '< path', '< /pat h', '</ paths', '</ pat', 'the path ', '</content>', '\t', ' ', '<', '/', '>', 'a']
  const closes = ['</path>', '</ path >', '<\t/path\t>', '< / path>', '</path  >']
  // the rule, written as a regex: the first `<`, blanks, `/`, blanks, the name, blanks, `>`
  const rule = /<[ \t]*\/[ \t]*path[ \t]*>/
  fc.assert(fc.property(fc.array(fc.constantFrom(...noise), { minLength: 40, maxLength: 120 }), fc.constantFrom(...closes), (parts, close) => {
    // the noise can form tags (a closing tag, or a lenient opening tag after it that would start
    // the param again): the value is what comes before the first closing tag
    const noisy = parts.join('')
    const first = rule.exec(noisy)
    const rest = (first === null ? noisy : noisy.slice(0, first.index)) + close
    const m = rule.exec(rest)!
    const msg = `<read_file>\n<path>${rest}\n</read_file> after`
    const want = [tool('read_file', { path: rest.slice(0, m.index).trim() }), text('after')]
    const o = { lenientTags: true }
    t.same(whole(msg, { ...o, final: true }), want)
    t.same(streamed(fixedChunks(msg, 7), o), want)
  }), { numRuns: 400 })
  // the first closing tag wins, whatever the form of the later ones
  const long = 'x'.repeat(300)
  for (const later of ['</path>', '</ path >']) {
    t.same(whole(`<read_file><path>${long}</ path > y ${later}</read_file>`, { lenientTags: true }), [tool('read_file', { path: long })], later)
  }
})

t.test('lenientTags: a long value\'s closing tag holds at most LENIENT_SLACK blanks, wherever they are', async (t) => {
  // the long-value search bounds the blanks after the name by the same limit the tag's reader
  // puts on all its blanks: one-shot (the search) and 7-byte chunks (the per-'<' path) agree
  fc.assert(fc.property(fc.nat(18), fc.nat(18), fc.nat(18), fc.boolean(), (a, b, c, tab) => {
    const blank = (k: number) => (tab ? '\t' : ' ').repeat(k)
    const long = 'x'.repeat(300)
    const close = `<${blank(a)}/${blank(b)}path${blank(c)}>`
    const msg = `<read_file><path>${long}${close}y</path></read_file>`
    const want = [tool('read_file', { path: a + b + c <= LENIENT_SLACK ? long : long + close + 'y' })]
    t.same(whole(msg, { lenientTags: true, final: true }), want)
    t.same(streamed(fixedChunks(msg, 7), { lenientTags: true }), want)
  }), { numRuns: 150 })
})

t.test('diagnostics change no block: a lenient tag past the length limit is text with or without them', async (t) => {
  // diagnostics read longer text-mode candidates (to report unknown names); a tag that only this
  // longer reading found, or a cut one it held back, made the blocks depend on them
  const names = ['read_file', 'list_code_definition_names', 'path', 'thinking', 'x_y']
  const blanks = fc.constantFrom('', ' ', '\t', ' '.repeat(8), ' '.repeat(17), ' '.repeat(30))
  const tag = fc.tuple(fc.constantFrom(...names), blanks, fc.boolean(), blanks).map(([n, a, slash, b]) => `<${a}${slash ? '/' : ''}${n}${b}>`)
  const part = fc.oneof(tag, fc.constantFrom('x', ' ', '\n', '<', '< ', 'a < b'))
  const msgs = fc.array(part, { maxLength: 14, size: 'max' }).map((a) => a.join(''))
  for (const o of [{ profile: 'robust' as const }, { lenientTags: true }]) {
    fc.assert(fc.property(msgs, fc.array(fc.nat(400), { maxLength: 6 }), (msg, cuts) => {
      const plain = strip(parseAssistantMessage(msg, { ...o, idGenerator: counter() }))
      t.same(strip(parseWithDiagnostics(msg, { ...o, idGenerator: counter() }).blocks), plain)
      // streamed with diagnostics: after each chunk, the parse of the text so far without them
      let blocks: Block[] = []
      const s = new DiffSession({ ...o, diagnostics: true, idGenerator: counter(), emit: 'snapshots' }, { record: (r) => { blocks = r as Block[] }, diagnostic: () => {} })
      let last = 0
      for (const at of [...new Set(cuts.map((c) => c % (msg.length + 1)))].sort((a, b) => a - b).concat(msg.length)) {
        if (at <= last) continue
        s.push(msg.slice(last, at))
        last = at
        t.same(strip(blocks), strip(parseAssistantMessage(msg.slice(0, at), { ...o, idGenerator: counter() })), JSON.stringify(msg.slice(0, at)))
      }
    }), { numRuns: 300 })
  }
})

t.test('a dialect without tools has no tags: `<>` is text', async (t) => {
  const dialect = defineDialect({ tools: [], params: [] })
  for (const o of [{}, { lenientTags: true }, { profile: 'robust' as const }]) {
    t.same(whole('a <> <read_file> < > b', { dialect, ...o, final: true }), [text('a <> <read_file> < > b')], JSON.stringify(o))
  }
})

t.test('names with regex metacharacters are matched as written by the tag regexes', async (t) => {
  const dialect = defineDialect({ tools: ['a.b+c', 't(x)|y', 'é😀'], params: ['p$', 'q^', '😀'] })
  const msg = 'x <a.b+c><p$>1</p$></a.b+c> <aXb+c> <t(x)|y><q^>2</q^></t(x)|y> <t> <é😀><😀>3</😀></é😀>'
  const want = [text('x'), tool('a.b+c', { p$: '1' }), text('<aXb+c>'), tool('t(x)|y', { 'q^': '2' }), text('<t>'), tool('é😀', { '😀': '3' })]
  for (const o of [{}, { lenientTags: true }, { profile: 'robust' as const }]) {
    t.same(whole(msg, { dialect, ...o, final: true }), want, JSON.stringify(o))
    t.same(streamed(fixedChunks(msg, 3), { dialect, ...o }), want, `${JSON.stringify(o)}, 3-byte chunks`)
  }
  // the lenient form too
  t.same(whole('< a.b+c >< p$ >5</ p$ ></ a.b+c >', { dialect, lenientTags: true }), [tool('a.b+c', { p$: '5' })])
  // and a long value's closing tag, found by a regex of the name: `a.c` must not match `abc`
  const long = 'v'.repeat(300)
  const d2 = defineDialect({ tools: ['a.b+c'], params: ['p$', '😀', 'a.c', '[x]'] })
  for (const p of ['p$', '😀', 'a.c', '[x]']) {
    const fake = p === 'a.c' ? '</ abc >' : `</ ${p}x >`
    const msg = `<a.b+c><${p}>${long}${fake}${long}</ ${p} >tail</a.b+c>`
    const want = [tool('a.b+c', { [p]: long + fake + long })]
    t.same(whole(msg, { dialect: d2, lenientTags: true }), want, p)
    t.same(streamed(fixedChunks(msg, 5), { dialect: d2, lenientTags: true }), want, `${p}, 5-byte chunks`)
  }
})

t.test('codeFences: a fence opens after up to three spaces at a line start, found by looking back from the backtick', async (t) => {
  const call = '<read_file><path>a</path></read_file>'
  for (const [lead, fenced] of [['', true], [' ', true], ['   ', true], ['    ', false], ['x ', false], ['\t', false]] as const) {
    // an unclosed fence runs to the end of the text; three backticks that open none are a code
    // span that the line's end makes literal
    const msg = `See:\n${lead}\`\`\`\n${call}\nok`
    const got = whole(msg, { codeFences: true, final: true }) as Array<{ type: string }>
    t.equal(got.filter((b) => b.type === 'tool_use').length, fenced ? 0 : 1, JSON.stringify(lead))
    for (const size of [1, 2, 3, 5]) t.same(streamed(fixedChunks(msg, size), { codeFences: true }), got, `${JSON.stringify(lead)}, ${size}-byte chunks`)
  }
  // prose with many newlines and no backtick: the scanner does not stop at them, and a window
  // ending at a line start with spaces still waits for what follows them
  const prose = 'line\n'.repeat(200) + '  '
  for (const tail of ['```\n' + call, 'text ' + call]) {
    const msg = prose + tail
    const want = whole(msg, { codeFences: true, final: true })
    t.same(streamed([prose, tail], { codeFences: true }), want, JSON.stringify(tail))
  }
})

t.test('codeFences without diagnostics stops only at tag candidates; with them at every "<"', async (t) => {
  // both must find the same tags: prose '<'s, a lenient tag, a tag cut at the window end
  const parts = ['a<b', '<div>', '< read_file >', '<read_file>', '</read_file>', '<path>p</path>', '`x`', '\n', ' ', '<read_fi']
  fc.assert(fc.property(fc.array(fc.constantFrom(...parts), { maxLength: 40 }), fc.integer({ min: 1, max: 9 }), (a, size) => {
    const msg = a.join('')
    for (const o of [{ codeFences: true, lenientTags: true }, { profile: 'robust' as const }]) {
      const want = whole(msg, { ...o, final: true })
      t.same(streamed(fixedChunks(msg, size), o), want)
      // parseWithDiagnostics runs the per-'<' path (every '<' may be an unknown tool's)
      t.same(strip(parseWithDiagnostics(msg, { idGenerator: counter(), ...o, final: true }).blocks), want)
    }
  }), { numRuns: 100 })
})

t.test('text mode finds tag candidates from the names\' anchors: exactly where the tag regex matches', async (t) => {
  // names that are prefixes, suffixes and infixes of one another, of common letters only (long
  // anchors), with '_' (one shared anchor), astral characters and regex metacharacters
  const pool = ['a', 'ab', 'ba', 'aba', 'task', 'new_task', 'new', 'read_file', 'file', 'x_y_z', 'e😀', 'a.c', 'condense', 'dense', 'think', 'thinking', 'ee']
  const name = fc.constantFrom(...pool)
  const blanks = fc.constantFrom('', ' ', '\t', '   ', ' '.repeat(LENIENT_SLACK), ' '.repeat(90), ' '.repeat(93))
  const piece = fc.oneof(
    fc.tuple(blanks, name, blanks).map(([a, n, b]) => `<${a}${n}${b}>`),
    name,
    fc.constantFrom('<', '<<', '>', ' ', '\t', '/', '_', 'x', 'e', 'a < b', '<a_', 'ab_c', '\n', '😀'),
  )
  fc.assert(fc.property(fc.uniqueArray(name, { minLength: 1, maxLength: 6 }), fc.array(piece, { maxLength: 40 }), fc.array(fc.nat(), { maxLength: 12 }), fc.boolean(), (names, parts, jumps, lenient) => {
    const tags = new TagSet()
    for (const x of names) tags.add(x)
    tags.compile()
    // every name is found by an anchor, at an offset kept for it
    for (const x of names) t.ok(tags.anchors.some((c, a) => x.includes(c) && tags.anchorOffsets[a]!.includes(x.indexOf(c))), x)
    // the anchors serve searches over 256 characters or more (a shorter one runs the regex): a
    // filler after the pieces puts every search among them on the anchor path
    const w = parts.join('') + '.'.repeat(256)
    const reader = new TagReader(lenient, false, tags, new TagSet())
    const re = lenient ? tags.lenient : tags.exact
    const rule = (from: number): number => {
      re.lastIndex = from
      const m = re.exec(w)
      return m === null ? -1 : m.index
    }
    // ended: no cut candidate at the window's end, so a miss is the window's length
    const got = (from: number): number => {
      const s = reader.nextCandidate(w, from, tags, true)
      return s === w.length ? -1 : s
    }
    reader.newWindow()
    // walking forward from candidate to candidate, as the scanners do
    for (let from = 0, s = got(0); ; s = got(from)) {
      t.equal(s, rule(from), `${JSON.stringify(names)} ${JSON.stringify(w)} from ${from}`)
      if (s < 0) break
      from = s + 1
    }
    // and from arbitrary points, forward and back (a fence scanner back from a long code span)
    reader.newWindow()
    for (const j of jumps) {
      const from = j % (w.length + 1)
      t.equal(got(from), rule(from), `${JSON.stringify(names)} ${JSON.stringify(w)} jump to ${from}`)
    }
  }), { numRuns: 400 })
})

t.test('an engine fed after its end carries nothing: no tag can be cut any more', async (t) => {
  for (const o of [{}, { profile: 'robust' as const }, { codeFences: true, lenientTags: true }]) {
    const e = new Engine(resolveOptions({ idGenerator: counter(), ...o }))
    e.end()
    e.feed('Hello <read_fi')
    t.equal((e as unknown as { carry: string }).carry, '', JSON.stringify(o))
    t.same(strip(e.blocks(true)), [text('Hello <read_fi')], JSON.stringify(o))
    const f = new Engine(resolveOptions({ idGenerator: counter(), ...o }))
    f.feed('<read_file>')
    f.end()
    f.feed('<pat')
    t.equal((f as unknown as { carry: string }).carry, '', `tool mode, ${JSON.stringify(o)}`)
  }
})

t.test('exact profile: a long value\'s closing tag is found by name and by either anchor, whatever their density', async (t) => {
  // findClose searches a long value's first stretch by name, then window by window, by the
  // anchor `/conte` or the name from its rarest letter (`conten`, `king` of thinking), as the
  // window's sample shows their first characters, or by name where both are dense: with small
  // stretches and windows (so that every boundary between the searches is met often), values
  // with runs of '/' and of the anchors dense and sparse, closing tags cut short, of other names
  // or with blanks, against the rule (the first closing tag, else a cut one at the end, else none)
  const { findClose } = await import('../lib/parse/exact-scan.js')
  for (const name of ['content', 'thinking']) {
    const close = `</${name}>`
    const nameRe = new RegExp(`${name}[ \\t]{0,16}>`, 'g')
    const fragments = ['/', '//', 'a/b', '/c', '/t', '</', '</c', '</t', `</${name.slice(0, -1)}`, `</${name} >`, `<${name}>`, `${name}>`, `/${name}>`, '<', 'xxxxxxxxxxxx', ' ', '\n', '</path>',
      'k', 'king', 'king>', 'c', 'conten', 'hinking', `${name.slice(0, 3)}x${name.slice(3)}`]
    const rule = (w: string, p: number, ended: boolean): number => {
      const i = w.indexOf(close, p)
      if (i >= 0) return i
      if (!ended) for (let l = Math.max(p, w.length - close.length + 1); l < w.length; l++) if (w[l] === '<' && close.startsWith(w.slice(l))) return ~l
      return ~w.length
    }
    const part = fc.tuple(fc.constantFrom(...fragments), fc.integer({ min: 1, max: 40 })).map(([f, k]) => f.repeat(k))
    const search = fc.record({
      head: fc.integer({ min: 1, max: 300 }), window: fc.integer({ min: 1, max: 64 }), sample: fc.integer({ min: 1, max: 32 }), dense: fc.integer({ min: 1, max: 8 }),
    })
    // the closing tag itself now and then, so that it often stands at a boundary between stretches
    const piece = fc.oneof({ arbitrary: part, weight: 12 }, { arbitrary: fc.constant(close), weight: 1 })
    fc.assert(fc.property(fc.array(piece, { minLength: 1, maxLength: 60 }), fc.constantFrom('', close, close.slice(0, 6), '<'), fc.boolean(), search, (parts, tail, ended, o) => {
      const w = 'y'.repeat(256) + parts.join('') + tail
      // starts around the first closing tag: just after it, and where it falls at the end of
      // the first stretch
      const c = w.indexOf(close)
      const starts = [0, 3, Math.floor(w.length / 3), c + 1, c - o.head - 2, c - o.head - 1, c - o.head, c - o.head + 1]
      for (const p of starts.filter((x) => x >= 0 && x <= w.length)) {
        const got = findClose(w, p, close, ended, nameRe, o)
        const want = rule(w, p, ended)
        if (got !== want) throw new Error(`${name} at p=${p} of ${w.length} with ${JSON.stringify(o)}: got ${got}, want ${want}`)
      }
      // and with the defaults, on values past the first stretch
      const long = 'y'.repeat(33 * 1024) + w
      const got = findClose(long, 0, close, ended, nameRe)
      if (got !== rule(long, 0, ended)) throw new Error(`${name} defaults: got ${got}, want ${rule(long, 0, ended)}`)
    }), { numRuns: 2000 })
    t.pass(`${name}: 2000 values agree with the rule`)
  }
})

t.test('lenientTags: a long value\'s closing tag is found by name, by its anchor and by each \'/\', whatever their density', async (t) => {
  // lenientClose: the first stretch by name, then window by window, by the name's anchor (from
  // its rarest letter: `conten` of content, `king` of thinking), by each '/' or by name, as the
  // window's sample shows them; with small stretches and windows, against the rule (the first
  // `<`, blanks, `/`, blanks, the name, blanks, `>` with at most LENIENT_SLACK blanks in all)
  const { lenientClose } = await import('../lib/parse/lenient.js')
  const { anchorAt } = await import('../lib/parse/exact-scan.js')
  t.equal(anchorAt('content'), 0)
  t.equal(anchorAt('thinking'), 4, 'k, the rarest letter, with three characters after it')
  t.equal(anchorAt('think'), 1, 'the anchor keeps three characters: hink')
  for (const name of ['content', 'thinking']) {
    const close = `</${name}>`
    const re = new RegExp(`${name}[ \\t]{0,16}>`, 'g')
    const at = anchorAt(name)
    const anchor = name.slice(at, at + 6)
    const fragments = ['/', '//', 'a/b', '/c', '/ c', '</', `< /${name}>`, `</ ${name}>`, `</${name} \t>`, `< / ${name} >`, `</${name.slice(0, -1)}`, `<${name}>`, `${name}>`, `/ ${name}>`,
      '<', 'xxxxxxxxxxxx', ' ', '\t', '\n', '</path>', '<' + ' '.repeat(9) + '/' + ' '.repeat(9) + `${name}>`, anchor, anchor[0]!, name, `/${anchor}`, `${name.slice(0, at)}x${anchor}`]
    const rule = (w: string, p: number): number => {
      const m = new RegExp(`<([ \\t]*)\\/([ \\t]*)${name}([ \\t]*)>`, 'g')
      m.lastIndex = p
      for (let h = m.exec(w); h !== null; h = m.exec(w)) if (h[1]!.length + h[2]!.length + h[3]!.length <= LENIENT_SLACK) return h.index
      return -1
    }
    const part = fc.tuple(fc.constantFrom(...fragments), fc.integer({ min: 1, max: 40 })).map(([f, k]) => f.repeat(k))
    // closing tags of every form, the longest blank runs included, so that one often stands at
    // a boundary between stretches
    const forms = [close, `</ ${name} >`, `</${name}` + ' '.repeat(9) + '>', '<' + ' '.repeat(5) + '/' + ' '.repeat(9) + `${name}>`, `< /\t${name}\t>`]
    const piece = fc.oneof({ arbitrary: part, weight: 12 }, { arbitrary: fc.constantFrom(...forms), weight: 1 })
    const search = fc.record({
      head: fc.integer({ min: 1, max: 300 }), window: fc.integer({ min: 1, max: 64 }), sample: fc.integer({ min: 1, max: 32 }),
      dense: fc.integer({ min: 1, max: 8 }), slashes: fc.integer({ min: 1, max: 8 }),
    })
    fc.assert(fc.property(fc.array(piece, { minLength: 1, maxLength: 60 }), fc.boolean(), search, (parts, ended, o) => {
      const w = 'y'.repeat(256) + parts.join('')
      const c = rule(w, 0)
      const starts = [0, 3, Math.floor(w.length / 3), c + 1, ...Array.from({ length: 24 }, (_, k) => c - o.head - 20 + k)]
      for (const p of starts.filter((x) => x >= 0 && x <= w.length)) {
        const got = lenientClose(w, p, close, ended, re, o)
        const want = rule(w, p)
        if (got !== want) throw new Error(`${name} at p=${p} of ${w.length} with ${JSON.stringify(o)}: got ${got}, want ${want}`)
      }
      const long = 'y'.repeat(33 * 1024) + w
      if (lenientClose(long, 0, close, ended, re) !== rule(long, 0)) throw new Error(`${name} defaults: got ${lenientClose(long, 0, close, ended, re)}, want ${rule(long, 0)}`)
    }), { numRuns: 2000 })
    t.pass(`${name}: 2000 values agree with the rule`)
  }
})

t.test('exact profile: a write_to_file body past 32 KB parses as the naive reference does, one-shot and streamed', async (t) => {
  const { naiveParse } = await import('../bench/naive.mjs')
  const line = (k: number): string => [
    `  // see a/b/c/${k}`, `  return <div>{x}</div>`, `  const url = 'http://h/p/${k}'`, `  if (a < b && c > d) x /= 2`, `  </conten`, `  total = ${k}`,
  ][k % 6]!
  const body = Array.from({ length: 4000 }, (_, k) => line(k)).join('\n')
  t.ok(body.length > 64 * 1024, `body of ${body.length} characters`)
  for (const end of ['\n</content>\n</write_to_file>\nDone.', '\n</content>\n</write_to_file>', '\n</conte', '']) {
    const msg = `Writing.\n<write_to_file>\n<path>src/a.tsx</path>\n<content>\n${body}${end}`
    const want = naiveParse(msg)
    t.same(strip(parseAssistantMessage(msg)), want, `one-shot, ending ${JSON.stringify(end)}`)
    t.same(streamed(fixedChunks(msg, 4093), {}), strip(parseAssistantMessage(msg, { idGenerator: counter(), final: true })), `4093-byte chunks (to the end), ending ${JSON.stringify(end)}`)
  }
})

t.test('long command values past the first stretch: one-shot = the naive reference (exact), = 4093-byte chunks (lenientTags)', async (t) => {
  // bodies of tens of KB from lines with '/' sparse and dense, closing tags of other names, cut
  // ones, lenient forms; the message's own closing tags come after them, or not at all
  const { naiveParse } = await import('../bench/naive.mjs')
  // blocks of lines where '/' is dense, and blocks where it is rare (the search by anchor or by
  // each '/' runs only there)
  const dense = ['  // see a/b/c', '  return <div>{x}</div>', "  const url = 'http://h/p/q'", '  x /= 2 // /c /c', '  ' + '/'.repeat(80), '  </path> </contents>']
  // sparse: a line with '/' now and then among lines without (a sample of 512 characters then
  // holds fewer '/' than hand a window to the search by name)
  const tricky = ['  </conten', '  </ content', '  < /content', '  const s = "</content  "', '  thinking about </ thinking', '  let c = a / b', '  </contents>']
  const line = fc.oneof({ arbitrary: fc.constantFrom('  total = 1', '  const a = b + c * d', '  if (a < b && c > d) x = 2', '  return x'), weight: 8 }, { arbitrary: fc.constantFrom(...tricky), weight: 1 })
  const block = fc.oneof(
    { arbitrary: fc.array(fc.constantFrom(...dense), { minLength: 50, maxLength: 400, size: 'max' }), weight: 1 },
    { arbitrary: fc.array(line, { minLength: 200, maxLength: 1200, size: 'max' }), weight: 3 },
  )
  // past a first stretch of plain lines, so that the blocks fall in the windows
  const plain = '  total = 1\n'.repeat(3000)
  const body = fc.array(block, { minLength: 2, maxLength: 8, size: 'max' }).map((bs) => plain + bs.flat().join('\n'))
  // a value of a param that is not greedy (write_to_file's content is: the tool's closing tag
  // decides it, whatever the first closing tag of the value)
  const end = fc.constantFrom('\n</command>\n</execute_command>\nDone.', '\n< / command >\n</execute_command>', '\n</command', '')
  fc.assert(fc.property(body, end, (b, e) => {
    const msg = `Running.\n<execute_command>\n<command>\n${b.replaceAll('content', 'command')}${e}`
    const got = JSON.stringify(strip(parseAssistantMessage(msg)))
    const want = JSON.stringify(naiveParse(msg))
    if (got !== want) throw new Error(`exact profile differs from the naive reference on a ${msg.length}-character message ending ${JSON.stringify(e)}`)
    const o = { lenientTags: true }
    const whole = JSON.stringify(strip(parseAssistantMessage(msg, { ...o, final: true, idGenerator: counter() })))
    const chunks = JSON.stringify(streamed(fixedChunks(msg, 4093), o))
    if (whole !== chunks) throw new Error(`lenientTags: one-shot and 4093-byte chunks differ on a ${msg.length}-character message ending ${JSON.stringify(e)}`)
  }), { numRuns: 25 })
  t.pass('25 long messages agree')
})

t.test('a chunk that ends inside an opening tag, up to the longest name whole, is never taken as text (cutAt at every cut)', async (t) => {
  // the streamed chunk after the first is what takesWhole decides on: a chunk that ends in `<` and
  // any prefix of a tag's name, the whole longest one included, must leave it for the next chunk
  let streams = 0
  let wrong = 0
  for (const name of clineDialect.tools) {
    const m = `Say it. <${name}><path>a.ts</path></${name}> done`
    const want = strip(parseAssistantMessage(m, { final: true }))
    const open = m.indexOf('<')
    for (let i = open + 1; i <= open + name.length + 2; i++) {
      const got = streamed([m.slice(0, 4), m.slice(4, i), m.slice(i)], {})
      streams++
      if (JSON.stringify(got) !== JSON.stringify(want) && wrong++ < 3) t.fail(`${name} cut at ${i - open}`, { got, want })
    }
  }
  t.equal(streams, clineDialect.tools.reduce((n, name) => n + name.length + 2, 0), 'every tool, cut at every character of its opening tag')
  t.equal(wrong, 0, 'each streamed parse equals the one-shot parse')
})
