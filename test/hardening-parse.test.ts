// Issue 11, the parser's share of "Hardening": each reproduction of a superlinear path, with
// the output checked against the one-shot parse (or another chunking) and, where it can be
// counted, the work checked to grow linearly (never a timed assertion; bench/linearity.bench.mjs
// has the timings). Then the diagnostics cap (maxDiagnostics).
import t from 'tap'
import fc from 'fast-check'
import { parseAssistantMessage, parseWithDiagnostics, applyDiff, type Block, type BlockDiff, type DiffRecord, type Diagnostic, type ParseOptions, type ToolUseBlock } from '../lib/index.js'
import { DiffSession, type StreamParseOptions } from '../lib/streams/session.js'
import { Engine } from '../lib/parse/engine.js'
import { lenientInner } from '../lib/parse/lenient.js'
import { resolveOptions } from '../lib/parse/options.js'
import { soup, cutsUpTo, chunksOf, counter, fixedChunks } from './helpers/arb.js'

interface Streamed { blocks: Block[]; diagnostics: Diagnostic[] }

/** Streams `chunks` through a DiffSession: the blocks the diffs add up to, and the diagnostics. */
function stream(chunks: string[], opts: StreamParseOptions): Streamed {
  let blocks: Block[] = []
  const diagnostics: Diagnostic[] = []
  const s = new DiffSession({ idGenerator: counter(), ...opts }, {
    record: (r) => { if (!Array.isArray(r) && r.op !== 'diagnostic' && r.op !== 'message' && r.op !== 'end') blocks = applyDiff(blocks, r as BlockDiff) },
    diagnostic: (d) => diagnostics.push(d),
  })
  for (const c of chunks) s.push(c)
  s.end()
  return { blocks, diagnostics }
}

/** The one-shot parse of the whole text, as the stream ends it. */
function whole(text: string, opts: ParseOptions): Streamed {
  const o = { idGenerator: counter(), ...opts, final: true }
  if (!resolveOptions(o).diagnostics) return { blocks: parseAssistantMessage(text, o), diagnostics: [] }
  const r = parseWithDiagnostics(text, o)
  return { blocks: r.blocks, diagnostics: r.diagnostics }
}

/**
 * Characters that `String.prototype.indexOf` reads while `fn` runs (from its start to the match,
 * or to the end): the scanners' work, counted instead of timed.
 */
function indexOfWork(fn: () => void): number {
  const orig = String.prototype.indexOf
  let work = 0
  String.prototype.indexOf = function (this: string, search: string, from?: number): number {
    const r = orig.call(this, search, from)
    const f = Math.min(Math.max(0, from ?? 0), this.length)
    work += (r < 0 ? this.length : r + search.length) - f
    return r
  }
  try {
    fn()
  } finally {
    String.prototype.indexOf = orig
  }
  return work
}

/** The engine's private `carry`: the raw text it will read again with the next chunk. */
const carryOf = (e: Engine): string => (e as unknown as { carry: string }).carry

t.test('item 1: a run of backticks streamed with codeFences is not kept aside and reread', async (t) => {
  for (const [label, text] of [
    ['at a line start', '`'.repeat(8192)],
    ['inside a line', 'See ' + '`'.repeat(8192)],
    ['inside a fence', '```\ncode\n' + '`'.repeat(8192)],
    ['opening a fence, then a tool that stays text', '`'.repeat(4096) + '\n<read_file><path>a</path></read_file>\n' + '`'.repeat(4095) + '\nok'],
    ['opening and closing a span, then a tool', 'a ' + '`'.repeat(3000) + 'x' + '`'.repeat(3000) + ' <read_file><path>a</path></read_file>'],
    // a tool tag in an open span is held: text while the span may still close
    ['after a held tag, then text', 'a `b <read_file><path>a</path></read_file> ' + '`'.repeat(8192) + ' c'],
    ['after a held tag, to the end', 'a `b <read_file><path>a</path></read_file> ' + '`'.repeat(8192)],
    ['a held tag, its line ends', 'a `b <read_file><path>a</path></read_file> ' + 'x'.repeat(3000) + '\nok'],
    ['a held tag, its span closes', 'a `b <read_file><path>a</path></read_file> ' + 'x'.repeat(3000) + '` ok <read_file><path>b</path></read_file>'],
    ['a held tag, its span runs too long', 'a `b <read_file><path>a</path></read_file> ' + 'x'.repeat(5000) + '\nok'],
  ] as const) {
    const e = new Engine(resolveOptions({ codeFences: true, idGenerator: counter() }))
    let most = 0
    for (const c of fixedChunks(text, 16)) {
      e.feed(c)
      most = Math.max(most, carryOf(e).length)
    }
    t.ok(most <= 16, `${label}: at most one chunk is carried (${most})`)
    for (const o of [{ codeFences: true }, { profile: 'robust' } as const]) {
      t.same(stream(fixedChunks(text, 16), o), whole(text, o), `${label}, ${JSON.stringify(o)}: 16-byte chunks = one-shot parse`)
    }
  }
  // the run's length decides: a run of 3 opens a fence only if it is all the line start has
  const run = (k: number): string => '``' + '`'.repeat(k) + '\n<read_file><path>a</path></read_file>'
  for (const k of [0, 1, 2]) {
    const want = whole(run(k), { codeFences: true })
    for (const size of [1, 2, 3]) t.same(stream(fixedChunks(run(k), size), { codeFences: true }), want, `run of ${k + 2}, ${size}-byte chunks`)
  }
})

t.test('item 2: blank lines after </content> with greedyWhileStreaming cost linear work', async (t) => {
  const msg = (n: number): string => '<write_to_file><path>a</path><content>x</content>' + '\n'.repeat(n)
  const o = { greedyWhileStreaming: true }
  const work = (n: number): number => indexOfWork(() => stream(fixedChunks(msg(n), 16), o))
  const [w1, w4] = [work(4096), work(16384)]
  t.ok(w4 <= 5 * w1, `4x the newlines, ${(w4 / w1).toFixed(2)}x the characters searched (was ~16x)`)
  for (const tail of ['', '</write_to_file>', '</write_to_', '</content>y</content>\n\n</write_to_file>', 'more</content>\n</wr', '\n</conte',
    // inside another param the view sees the start of the tool's closing tag grow piece by piece
    '<path>p</content>\n</write_to_file</path></write_to_file>', '<path>p</content> </write_to_fx</path>']) {
    const text = msg(300) + tail
    const want = whole(text, o)
    for (const size of [1, 5, 16]) t.same(stream(fixedChunks(text, size), o), want, `${JSON.stringify(tail)}, ${size}-byte chunks = one-shot`)
  }
  // what the preview shows while it streams: the held newlines never appear, the file is never cut
  const shown: string[] = []
  const s = new DiffSession({ ...o, idGenerator: counter(), emit: 'snapshots' }, {
    record: (r) => { const b = (r as Block[])[0]; if (b?.type === 'tool_use' && b.params.content !== undefined) shown.push(b.params.content) },
    diagnostic: () => {},
  })
  for (const c of fixedChunks(msg(64) + 'y</content>\n</write_to_file>', 8)) s.push(c)
  s.end()
  t.same([...new Set(shown)], ['x', 'x</content>' + '\n'.repeat(64) + 'y'], 'only ever x, then the whole file')
})

t.test('item 3: a one-shot parse with codeFences is linear in the number of tool calls', async (t) => {
  for (const [label, unit] of [
    ['with newlines', 'Some text.\n<read_file><path>src/a.ts</path></read_file>\n'],
    ['without newlines', 'Some text. <read_file><path>src/a.ts</path></read_file> '],
  ] as const) {
    const text = (k: number): string => unit.repeat(k)
    const work = (k: number): number => indexOfWork(() => parseAssistantMessage(text(k), { codeFences: true }))
    const [w1, w4] = [work(500), work(2000)]
    t.ok(w4 <= 5 * w1, `${label}: 4x the calls, ${(w4 / w1).toFixed(2)}x the characters searched`)
    const blocks = parseAssistantMessage(text(500), { codeFences: true, idGenerator: counter() })
    t.same(blocks, parseAssistantMessage(text(500), { idGenerator: counter() }), `${label}: no code in it, so the same blocks as the cline profile`)
    t.same(stream(fixedChunks(text(200), 7), { codeFences: true }), whole(text(200), { codeFences: true }), `${label}: 7-byte chunks = one-shot`)
  }
  // the positions found before a call are reused only while they are still ahead: the same as
  // 1-byte chunks, where nothing is reused
  const s = 'a `b <read_file><path>x</path></read_file> c` d\n<read_file><path>y</path></read_file> `e\n<read_file></read_file>``'
  const one = whole(s, { codeFences: true })
  t.same(one.blocks.map((b) => b.type), ['text', 'tool_use', 'text', 'tool_use', 'text'])
  t.same(stream(fixedChunks(s, 1), { codeFences: true }), one)
})

t.test('item 9: lenient tags are read without backtracking', async (t) => {
  // the regexes they replace, as the reference
  const tag = /^[ \t]*(\/?)[ \t]*([^\s<>/]+)[ \t]*$/u
  const partial = /^[ \t]*(\/?)[ \t]*([^\s<>/]*)[ \t]*$/u
  const ch = fc.constantFrom(' ', '\t', '/', 'a', 'b', '_', '<', '>', '\n', '\r', '\u00a0', '\u2028', '\ufeff', 'é', '😀')
  fc.assert(fc.property(fc.array(ch, { maxLength: 14 }).map((a) => a.join('')), (raw) => {
    const m = partial.exec(raw)
    const got = lenientInner(raw)
    if (got !== (m === null ? null : m[1]! + m[2]!)) throw new Error(`partial ${JSON.stringify(raw)}: ${got}`)
    const w = tag.exec(raw)
    const named = got === null || got === '' || got === '/' ? null : got
    if (named !== (w === null ? null : w[1]! + w[2]!)) throw new Error(`tag ${JSON.stringify(raw)}: ${named}`)
  }), { numRuns: 20000 })
  t.pass('same result as the regexes on 20000 strings')
  // the reproduction: '<', 60 blanks and two words, in 64-byte chunks that cut it everywhere
  const text = ('x<' + ' '.repeat(60) + 'a b').repeat(200) + '< read_file >< path >a</ path ></read_file >'
  for (const o of [{ lenientTags: true }, { profile: 'robust' } as const]) {
    const want = whole(text, o)
    t.equal(want.blocks.at(-1)?.type, 'tool_use')
    for (const size of [64, 63, 7]) t.same(stream(fixedChunks(text, size), o), want, `${JSON.stringify(o)}, ${size}-byte chunks = one-shot`)
  }
})

t.test('item 8: diagnostics are capped by maxDiagnostics, with one record of what was dropped', async (t) => {
  const flood = '<a_b>'.repeat(5000)
  const r = parseWithDiagnostics(flood, { profile: 'robust' })
  t.equal(r.diagnostics.length, 1001, 'the default cap of 1000, and one more')
  t.same(r.diagnostics.slice(0, 2).map((d) => [d.code, d.offset]), [['unknown-tool', 0], ['unknown-tool', 5]])
  t.match(r.diagnostics.at(-1), { code: 'diagnostics-dropped', offset: 5000, message: /^4000 more diagnostics were found and left out after the first 1000/ })

  const codes = (s: string, o: ParseOptions): string[] => parseWithDiagnostics(s, o).diagnostics.map((d) => d.code)
  t.same(codes('<a_b><c_d><e_f>', { maxDiagnostics: 2 }), ['unknown-tool', 'unknown-tool', 'diagnostics-dropped'])
  t.match(parseWithDiagnostics('<a_b><c_d><e_f>', { maxDiagnostics: 2 }).diagnostics[2], { offset: 10, message: /^1 more diagnostic was found/ })
  t.same(codes('<a_b><c_d>', { maxDiagnostics: 2 }), ['unknown-tool', 'unknown-tool'], 'nothing dropped, no record')
  t.same(codes('<a_b><read_file>x<path>a</path>y', { maxDiagnostics: 0 }), ['ignored-content', 'unclosed-tool', 'diagnostics-dropped'],
    'the end-of-input ones are always reported, the dropped record comes last')
  t.same(codes('<a_b>'.repeat(3), { maxDiagnostics: Infinity }), ['unknown-tool', 'unknown-tool', 'unknown-tool'])

  // the stream: memory stays bounded, the same diagnostics as the one-shot parse
  const s = new DiffSession({ profile: 'robust', diagnosticRecords: true }, { record: () => {}, diagnostic: () => {} })
  for (const c of fixedChunks(flood, 64)) s.push(c)
  t.equal(s.diagnostics.length, 1000, 'the session keeps at most the cap')
  s.end()
  t.same(stream(fixedChunks(flood, 13), { profile: 'robust' }).diagnostics, r.diagnostics, '13-byte chunks: the same diagnostics')

  for (const bad of [-1, 1.5, NaN, '10', null]) {
    t.throws(() => parseAssistantMessage('x', { maxDiagnostics: bad as number }), { code: 'ERR_INVALID_OPTION', message: /maxDiagnostics/ }, `maxDiagnostics ${String(bad)} is refused`)
  }
  t.throws(() => new DiffSession({ maxDiagnostics: -3 }, { record: () => {}, diagnostic: () => {} }), { code: 'ERR_INVALID_OPTION' })
})

t.test('the cap does not depend on chunking (random soups, small caps)', async (t) => {
  const records = (chunks: string[], o: StreamParseOptions): Diagnostic[] => {
    const out: Diagnostic[] = []
    const s = new DiffSession({ ...o, idGenerator: counter(), diagnosticRecords: true }, {
      record: (r) => { if (!Array.isArray(r) && r.op === 'diagnostic') { const { op: _op, ...d } = r as DiffRecord & Diagnostic; out.push(d) } },
      diagnostic: () => {},
    })
    for (const c of chunks) s.push(c)
    s.end()
    return out
  }
  const arb = fc.tuple(soup.chain((s) => cutsUpTo(s.length).map((cuts) => [s, cuts] as const)), fc.nat(4), fc.boolean())
  fc.assert(fc.property(arb, ([[s, cuts], max, robust]) => {
    const o: ParseOptions = robust ? { profile: 'robust', maxDiagnostics: max } : { diagnostics: true, maxDiagnostics: max }
    const want = whole(s, o).diagnostics
    const got = records(chunksOf(s, cuts), o)
    if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error(`${JSON.stringify(s)} ${JSON.stringify(cuts)}:\n got ${JSON.stringify(got)}\nwant ${JSON.stringify(want)}`)
    const found = want.filter((d) => d.code === 'unknown-tool' || d.code === 'ignored-content').length
    if (found > max + 1) throw new Error(`more than the cap: ${found}`)
  }), { numRuns: 1500 })
  t.pass('held on 1500 chunked soups')
})

t.test('streaming = one-shot on backtick-heavy soups (codeFences: runs cut by chunks, held tags)', async (t) => {
  // long fillers take an open span past its 4096-character limit
  const bits = fc.constantFrom('`', '``', '```', '````', '\n', ' ', '   ', 'x', 'y'.repeat(1500), '<read_file>', '</read_file>', '<path>', '</path>', '<think>', '</think>', '<a_b>')
  const text = fc.array(bits, { maxLength: 40, size: 'max' }).map((a) => a.join(''))
  fc.assert(fc.property(text.chain((s) => cutsUpTo(s.length).map((cuts) => [s, cuts] as const)), ([s, cuts]) => {
    for (const o of [{ codeFences: true }, { profile: 'robust' } as const]) {
      const got = stream(chunksOf(s, cuts), o)
      const want = whole(s, o)
      if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error(`${JSON.stringify(o)} ${JSON.stringify(chunksOf(s, cuts))}:\n got ${JSON.stringify(got)}\nwant ${JSON.stringify(want)}`)
    }
  }), { numRuns: 3000 })
  t.pass('held on 3000 chunked soups')
})

t.test('found by the new properties: a held entity fragment ended by white space in a later chunk', async (t) => {
  // the one-shot parse releases `&am` as text once white space follows; the stream held it
  for (const [chunks, o] of [
    [['<write_to_file><content>a</content><diff>&am', '  '], { greedyWhileStreaming: true, decodeEntities: true }],
    [['<execute_command><command>a &am', '\n', ' b'], { decodeEntities: true }],
    [['<execute_command><command>a &#6', ' \t', '0;'], { decodeEntities: true }],
  ] as const) {
    let blocks: Block[] = []
    const s = new DiffSession({ ...o, idGenerator: counter() }, { record: (r) => { blocks = applyDiff(blocks, r as BlockDiff) }, diagnostic: () => {} })
    let prefix = ''
    for (const c of chunks) {
      s.push(c)
      prefix += c
      t.same(blocks, parseAssistantMessage(prefix, { ...o, idGenerator: counter() }), `${JSON.stringify(prefix)}: as the parse of the prefix`)
    }
  }
})

t.test('found on the way: a greedy tool with many openings of its param reads its body once', async (t) => {
  // the first <content> is inside <path>, so rule 3.5 needs the whole body; each later opening
  // used to search it from the start again
  const msg = (k: number): string => '<write_to_file><path>' + 'x'.repeat(32 * k) + '<content></path>' + '<content>y</content>'.repeat(k) + 'z</write_to_file>'
  for (const o of [{}, { lenientTags: true }, { greedyWhileStreaming: true }] as ParseOptions[]) {
    const work = (k: number): number => indexOfWork(() => parseAssistantMessage(msg(k), o))
    // indexOf's work is counted, not a regex's: sizes where the path's closing tag is found the
    // same way at n and 4n (lenientTags: by indexOf past 16 KB; the exact profile: by a regex in
    // a value's first 32 KB, by indexOf of '/' after them)
    const [w1, w4] = o.lenientTags === true ? [work(600), work(2400)] : [work(250), work(1000)]
    t.ok(w4 <= 5 * w1, `${JSON.stringify(o)}: 4x the input, ${(w4 / w1).toFixed(2)}x the characters searched`)
    const want = whole(msg(40), o)
    const body = msg(40).slice('<write_to_file>'.length, -'</write_to_file>'.length)
    const rule = body.slice(body.indexOf('<content>') + '<content>'.length, body.lastIndexOf('</content>')).trim()
    t.equal((want.blocks[0] as ToolUseBlock).params.content, rule, 'SPEC 3.5: from the first opening to the last closing tag')
    for (const size of [1, 9, 64]) t.same(stream(fixedChunks(msg(40), size), o), want, `${JSON.stringify(o)}, ${size}-byte chunks = one-shot`)
  }
})
