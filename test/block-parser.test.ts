// BlockParser: the streaming laws (SPEC 5, 6) and the stream contract.
import t from 'tap'
import fc from 'fast-check'
import { Duplex, Readable, Writable, PassThrough } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { once } from 'node:events'
import {
  BlockParser, createBlockParser, parseAssistantMessage, parseStream, createWebBlockParser, applyDiff,
  type Block, type BlockDiff, type BlockParserOptions, type DiffRecord,
} from '../lib/index.js'
import { soup, cutsUpTo, chunksOf, fixedChunks, counter } from './helpers/arb.js'

/** Feeds chunks one by one, collecting the records each chunk produced. */
function drive(chunks: (string | Uint8Array)[], opts: BlockParserOptions = {}, end = true): { perChunk: DiffRecord[][]; tail: DiffRecord[]; parser: BlockParser<DiffRecord | Block[]> } {
  const parser = new BlockParser<DiffRecord | Block[]>({ highWaterMark: 1 << 20, idGenerator: counter(), ...opts })
  const perChunk: DiffRecord[][] = []
  const take = (): DiffRecord[] => {
    const out: DiffRecord[] = []
    let r: DiffRecord | null
    while ((r = parser.read() as DiffRecord | null) !== null) out.push(r)
    return out
  }
  for (const c of chunks) {
    parser.write(c)
    perChunk.push(take())
  }
  let tail: DiffRecord[] = []
  if (end) {
    parser.end()
    tail = take()
  }
  return { perChunk, tail, parser }
}

const apply = (blocks: Block[], recs: DiffRecord[]): Block[] => recs.reduce((b, d) => applyDiff(b, d as BlockDiff), blocks)
const json = (x: unknown): string => JSON.stringify(x)

/**
 * The resume mode's records after every chunk and at the end are the full re-parse's, and its
 * final blocks the one-shot parse's, for `text` cut into `chunks` under `opts`.
 */
function resumeAsFull(opts: BlockParserOptions, text: string, chunks: string[]): void {
  const a = drive(chunks, { ...opts, reparse: 'resume' })
  const b = drive(chunks, { ...opts, reparse: 'full' })
  if (json([a.perChunk, a.tail]) !== json([b.perChunk, b.tail])) throw new Error(`${json(opts)} differ on ${json(chunks)}`)
  const final = parseAssistantMessage(text, { ...opts, idGenerator: counter(), final: true })
  if (json(a.parser.blocks) !== json(final)) throw new Error(`${json(opts)}: final blocks differ on ${json(chunks)}`)
}

const chunked = soup.chain((s) => cutsUpTo(s.length).map((cuts) => [s, chunksOf(s, cuts)] as const))

for (const reparse of ['resume', 'full'] as const) {
  t.test(`${reparse}: after every chunk the diffs so far add up to parse(prefix)`, async (t) => {
    fc.assert(fc.property(chunked, ([s, chunks]) => {
      const { perChunk, tail, parser } = drive(chunks, { reparse })
      let blocks: Block[] = []
      let prefix = ''
      chunks.forEach((c, i) => {
        prefix += c
        blocks = apply(blocks, perChunk[i]!)
        const expected = parseAssistantMessage(prefix, { idGenerator: counter() })
        if (json(blocks) !== json(expected)) throw new Error(`after chunk ${i} of ${json(chunks)}: ${json(blocks)} != ${json(expected)}`)
        if (perChunk[i]!.length > 0 && i > 0 && json(apply(blocks, [])) === json(apply(apply([], perChunk.slice(0, i).flat()), []))) {
          throw new Error('a chunk that changed nothing emitted diffs')
        }
      })
      blocks = apply(blocks, tail)
      const final = parseAssistantMessage(s, { idGenerator: counter(), final: true })
      if (json(blocks) !== json(final)) throw new Error(`at end: ${json(blocks)} != ${json(final)}`)
      if (json(parser.blocks) !== json(final)) throw new Error('parser.blocks differs from the applied diffs')
      if (parser.text !== s) throw new Error('parser.text differs from the input')
    }), { numRuns: 600 })
    t.pass('held on 600 chunked soups')
  })
}

t.test('resume and full give identical diff streams (1-, 3-, 7-byte and random chunkings)', async (t) => {
  const chunkings = soup.chain((s) => fc.oneof(
    fc.constantFrom(1, 3, 7).map((n) => fixedChunks(s, n)),
    cutsUpTo(s.length).map((cuts) => chunksOf(s, cuts)),
  ))
  fc.assert(fc.property(chunkings, (chunks) => {
    const a = drive(chunks, { reparse: 'resume' })
    const b = drive(chunks, { reparse: 'full' })
    if (json([a.perChunk, a.tail]) !== json([b.perChunk, b.tail])) throw new Error(`differ on ${json(chunks)}`)
  }), { numRuns: 600 })
  t.pass('identical')
})

t.test('a \'<\' inside a value takes the shorter path only where it starts no closing tag of the value, lenient or exact', async (t) => {
  // Engine.takesWhole with the robust options: a chunk with a '<' inside a param or reasoning
  // value is taken whole when none of its '<' can start the value's closing tag, with blanks
  // (lenientTags) or exactly (decodeEntities alone), whole or cut by the chunk's end; values
  // full of near-misses, against re-parsing after every chunk
  const bits = ['<', '< ', '</', '< /', '</ ', '<\t/ ', '< \t', 'thinking', 'thinkin', 'think', 'path', 'pat', 'command', '>', ' >', ' ', '\t', 'x', '<b>', '</b>', '&amp;', '&', '\n']
  const value = fc.array(fc.constantFrom(...bits), { maxLength: 30, size: 'max' }).map((a) => a.join(''))
  const closes = (name: string): string[] => [`</${name}>`, `< /${name}>`, `</ ${name} >`, `<\t/\t${name}>`, '']
  const message = fc.oneof(
    fc.tuple(value, fc.constantFrom(...closes('thinking')), value).map(([v, c, after]) => `<thinking>${v}${c}${after}`),
    fc.tuple(fc.constantFrom('path', 'command'), value, fc.boolean(), value).map(([p, v, closed, after]) => `<execute_command><${p}>${v}${closed ? `</${p}>` : ''}${after}</execute_command>`),
  )
  const chunkings = message.chain((m) => fc.tuple(fc.constant(m), fc.oneof(
    fc.constantFrom(1, 3, 7, 16).map((n) => fixedChunks(m, n)),
    cutsUpTo(m.length).map((cuts) => chunksOf(m, cuts)),
  )))
  const optionSets: BlockParserOptions[] = [
    { profile: 'robust', diagnostics: false },
    { lenientTags: true, reasoningTags: ['thinking'] },
    { lenientTags: true, hidePartialTags: true, reasoningTags: ['thinking'] },
    { decodeEntities: true, reasoningTags: ['thinking'] },
  ]
  for (const opts of optionSets) {
    fc.assert(fc.property(chunkings, ([m, chunks]) => resumeAsFull(opts, m, chunks)), { numRuns: 400 })
    t.pass(`identical with ${json(opts)}`)
  }
})

t.test('resume and full give identical diff streams under each option (the shorter path of the usual chunk against re-parsing)', async (t) => {
  // resume mode sends a chunk that only grows the open value by a shorter path (Engine.takesWhole
  // and grow); full mode re-parses the whole text and never takes it. With the exact scanners the
  // shorter path is open in every mode; with the other options, in a param.
  const optionSets: BlockParserOptions[] = [
    { hidePartialTags: true },
    { greedyWhileStreaming: true },
    { reasoningTags: ['thinking', 'think'] },
    { truncation: true },
    { decodeEntities: true },
    { hidePartialTags: true, greedyWhileStreaming: true, reasoningTags: ['thinking'], truncation: true },
    // in a param the shorter path is open to every option
    { decodeEntities: true, greedyWhileStreaming: true },
    { decodeEntities: true, hidePartialTags: true, greedyWhileStreaming: true },
    { lenientTags: true, greedyWhileStreaming: true },
    { codeFences: true },
    { profile: 'robust', diagnostics: false },
  ]
  const chunkings = soup.chain((s) => fc.tuple(fc.constant(s), fc.oneof(
    fc.constantFrom(1, 3, 7, 16).map((n) => fixedChunks(s, n)),
    cutsUpTo(s.length).map((cuts) => chunksOf(s, cuts)),
  )))
  for (const opts of optionSets) {
    fc.assert(fc.property(chunkings, ([s, chunks]) => resumeAsFull(opts, s, chunks)), { numRuns: 250 })
    t.pass(`identical with ${json(opts)}`)
  }
})

t.test('a param streaming while a greedy view is open is sent as appends (no whole value compared after every chunk)', async (t) => {
  const text = '<write_to_file><content>x</content><path>' + 'ab cd<e '.repeat(400)
  const chunks = fixedChunks(text, 16)
  const { perChunk, tail, parser } = drive(chunks, { greedyWhileStreaming: true })
  const recs = perChunk.flat()
  const onPath = recs.filter((r) => 'path' in r && r.path === 'params.path')
  t.ok(onPath.length > 100, 'the path grows chunk by chunk')
  t.equal(onPath[0]!.op, 'set', 'the param appears')
  t.same([...new Set(onPath.slice(1).map((r) => r.op))], ['append'], 'then only appends')
  t.equal(json(apply([], [...recs, ...tail])), json(parseAssistantMessage(text, { greedyWhileStreaming: true, idGenerator: counter(), final: true })))
  t.equal(json(parser.blocks), json(parseAssistantMessage(text, { greedyWhileStreaming: true, idGenerator: counter(), final: true })))
})

t.test('robust options keep the laws too', async (t) => {
  fc.assert(fc.property(chunked, ([s, chunks]) => {
    const opts = { profile: 'robust', diagnostics: false } as const
    const { perChunk, tail } = drive(chunks, opts)
    const full = drive(chunks, { ...opts, reparse: 'full' })
    let blocks: Block[] = []
    let prefix = ''
    chunks.forEach((c, i) => {
      prefix += c
      blocks = apply(blocks, perChunk[i]!)
      const expected = parseAssistantMessage(prefix, { ...opts, idGenerator: counter() })
      if (json(blocks) !== json(expected)) throw new Error(`after chunk ${i} of ${json(chunks)}: ${json(blocks)} != ${json(expected)}`)
    })
    blocks = apply(blocks, tail)
    const final = parseAssistantMessage(s, { ...opts, idGenerator: counter(), final: true })
    if (json(blocks) !== json(final)) throw new Error(`at end: ${json(blocks)} != ${json(final)}`)
    if (json(full.perChunk) !== json(perChunk)) throw new Error('robust: resume and full differ')
  }), { numRuns: 600 })
  t.pass('held')
})

t.test('growth is sent as appends: total diff size is O(text)', async (t) => {
  const body = 'const x = a < b && c > d;\n'.repeat(4000) // ~100 KB with many '<'
  const msg = `Writing it.\n<write_to_file>\n<path>src/big.ts</path>\n<content>\n${body}</content>\n</write_to_file>\nDone, ${'more prose '.repeat(2000)}`
  for (const size of [1, 16]) {
    const { perChunk, tail } = drive(fixedChunks(msg, size))
    const total = [...perChunk.flat(), ...tail].reduce((n, d) => n + json(d).length, 0)
    const appends = perChunk.flat().filter((d) => d.op === 'append').length
    t.ok(total < msg.length * (size === 1 ? 80 : 8), `${size}-byte chunks: ${total} bytes of diffs for ${msg.length} of text`)
    t.ok(appends > msg.length / size / 2, 'most chunks are sent as appends')
  }
})

t.test('UTF-8: characters split across chunks, invalid bytes become U+FFFD', async (t) => {
  const s = 'héllo 😀 <read_file><path>ü/😀.ts</path></read_file> fin'
  const bytes = Buffer.from(s, 'utf8')
  const singles = Array.from(bytes, (b) => Uint8Array.of(b))
  const { tail, parser } = drive(singles)
  t.same(parser.blocks, parseAssistantMessage(s, { idGenerator: counter(), final: true }))
  t.ok(tail.length > 0)
  const bad = drive([Buffer.from([0x61, 0xff, 0x62]), Buffer.from([0xe2, 0x82])])
  t.equal(bad.parser.text, 'a\uFFFDb\uFFFD', 'invalid and unfinished sequences become U+FFFD, no error')
  const mixed = drive([Buffer.from([0xf0, 0x9f]), '!'])
  t.equal(mixed.parser.text, '\uFFFD!', 'a string after unfinished bytes flushes them as U+FFFD')
})

t.test('an async iterable given straight to pipeline gives the diffs Readable.from gives (its writes come from pipeline\'s pump)', async (t) => {
  const sinkOf = (out: DiffRecord[]): Writable => new Writable({ objectMode: true, write(d, _e, cb) { out.push(d); cb() } })
  await fc.assert(fc.asyncProperty(chunked, async ([s, chunks]) => {
    async function* deltas(): AsyncGenerator<string> {
      for (const c of chunks) yield c
    }
    const direct: DiffRecord[] = []
    const wrapped: DiffRecord[] = []
    const p1 = createBlockParser({ idGenerator: counter() })
    const p2 = createBlockParser({ idGenerator: counter() })
    // typed as the Duplex it is: after an async iterable, @types/node's pipeline overloads want a
    // stage whose read() is untyped
    const stage: Duplex = p1
    await pipeline(deltas(), stage, sinkOf(direct))
    await pipeline(Readable.from(deltas()), p2, sinkOf(wrapped))
    const want = parseAssistantMessage(s, { idGenerator: counter(), final: true })
    return json(direct) === json(wrapped) && json(apply([], direct)) === json(want) && json(p1.blocks) === json(want)
  }), { numRuns: 60 })
})

t.test('maxBytes: ERR_MESSAGE_TOO_LARGE, blocks so far kept, pipeline rejects', async (t) => {
  const parser = createBlockParser({ maxBytes: 50 })
  const sink = new Writable({ objectMode: true, write(_d, _e, cb) { cb() } })
  const source = Readable.from(['Hello <read_file><path>a</path></read_file>', ' and much more text here'], { objectMode: true })
  await t.rejects(pipeline(source, parser, sink), { code: 'ERR_MESSAGE_TOO_LARGE', message: /maxBytes \(50\)/ })
  t.same(parser.blocks.map((b) => b.type), ['text', 'tool_use'])
  t.equal(parser.text, 'Hello <read_file><path>a</path></read_file>')
})

t.test('a chunk of another type: ERR_INVALID_CHUNK through error, never thrown from write()', async (t) => {
  for (const bad of [42, null, { text: 'x' }, [1, 2]]) {
    const parser = new BlockParser()
    parser.write('ok ')
    const err = new Promise((resolve) => parser.once('error', resolve))
    t.doesNotThrow(() => parser.write(bad as unknown as string))
    t.match(await err, { code: 'ERR_INVALID_CHUNK', message: /BlockParser: chunk at byte 3/ })
    t.equal(parser.text, 'ok ')
  }
})

t.test('completeOnEnd', async (t) => {
  const on = drive(['Hi <read_file><path>a'])
  t.same(on.tail, [{ op: 'complete', index: 1 }])
  const off = drive(['Hi <read_file><path>a'], { completeOnEnd: false })
  t.same(off.tail, [])
  t.equal(off.parser.blocks[1]!.partial, true)
  const text = drive(['Hello'])
  t.same(text.tail, [{ op: 'complete', index: 0 }])
})

t.test('emit: snapshots gives the whole array after each change', async (t) => {
  const { perChunk, tail } = drive(['Hi ', ' ', '<read_file><path>a', '</path>'], { emit: 'snapshots' })
  t.equal(perChunk[1]!.length, 0, 'nothing for a chunk that changes nothing')
  t.same(perChunk[2]![0], parseAssistantMessage('Hi  <read_file><path>a', { idGenerator: counter() }))
  t.equal((tail[0] as unknown as Block[]).every((b) => !b.partial), true)
})

t.test('backpressure: a full readable side stops the parser pulling input', async (t) => {
  let produced = 0
  const source = new Readable({
    highWaterMark: 4,
    objectMode: true,
    read() {
      produced++
      this.push(produced > 100000 ? null : `word${produced} `)
    },
  })
  const parser = new BlockParser({ highWaterMark: 2, writableHighWaterMark: 2 })
  const sink = new Writable({ objectMode: true, highWaterMark: 1, write(_d, _e, cb) { setTimeout(cb, 5) } })
  const done = pipeline(source, parser, sink)
  await new Promise((r) => setTimeout(r, 100))
  t.ok(produced < 40, `source produced ${produced} chunks while the sink took ~20`)
  source.destroy()
  await done.catch(() => undefined)
})

t.test('a write with no callback is parsed at once when idle, and the same chunks as through the Writable wait for reads', async (t) => {
  // the same operations on two parsers: one written as pipe writes (no callback: parsed by
  // `write` itself when idle), one through the Writable's own path (a callback forces it); at
  // every step both have parsed the same text and hold the same records (while in step: see
  // inStep), and in the end they have emitted the same records
  type Op = { kind: 'write' | 'writecb' | 'read' | 'cork' | 'uncork'; c: string }
  const op: fc.Arbitrary<Op> = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('a', ' b', '<read_file><path>x', '</path></read_file>', '\n', '<', 'cont').map((c) => ({ kind: 'write' as const, c })) },
    { weight: 2, arbitrary: fc.constant({ kind: 'read' as const, c: '' }) },
    // the direct parser too takes some writes through the Writable, and both may be corked: each
    // changes the state that `write` checks before parsing a chunk itself
    { weight: 1, arbitrary: fc.constantFrom('x', '<path>', '</read_file>').map((c) => ({ kind: 'writecb' as const, c })) },
    { weight: 1, arbitrary: fc.constantFrom('cork' as const, 'uncork' as const).map((kind) => ({ kind, c: '' })) },
  )
  await fc.assert(fc.asyncProperty(fc.array(op, { maxLength: 40 }), fc.integer({ min: 1, max: 3 }), fc.boolean(), async (ops, hwm, endEarly) => {
    const direct = new BlockParser({ highWaterMark: hwm, writableHighWaterMark: 2, idGenerator: counter() })
    const classic = new BlockParser({ highWaterMark: hwm, writableHighWaterMark: 2, idGenerator: counter() })
    const got: [DiffRecord[], DiffRecord[]] = [[], []]
    const both = [direct, classic] as const
    const tick = (): Promise<void> => new Promise((r) => setImmediate(r))
    /**
     * Whether the two sides have read the same records so far. Corked, a chunk the direct parser
     * already took (held behind a full readable side) is parsed at the next read, while the same
     * chunk still in the Writable's buffer waits for the uncork: a second read then takes its
     * record on the direct side only. From there the direct side, one record further on, has room
     * on its readable side where the other has none, and parses (or ends) a step ahead: each
     * side still keeps the Writable's rules, and in the end both have emitted the same records.
     */
    let inStep = true
    for (const o of ops) {
      if (o.kind === 'write') {
        direct.write(o.c)
        classic.write(o.c, () => undefined)
      } else if (o.kind === 'writecb') {
        direct.write(o.c, () => undefined)
        classic.write(o.c, () => undefined)
      } else if (o.kind === 'cork') {
        both.forEach((p) => p.cork())
      } else if (o.kind === 'uncork') {
        both.forEach((p) => p.uncork())
      } else {
        both.forEach((p, k) => {
          const r = p.read() as DiffRecord | null
          if (r !== null) got[k].push(r)
        })
      }
      await tick()
      if (got[0].length !== got[1].length) inStep = false
      // corked, the two agree again once uncorked, if no read took a record on one side only
      if (direct.writableCorked > 0 || !inStep) continue
      if (direct.text !== classic.text || direct.readableLength !== classic.readableLength) {
        throw new Error(`after ${JSON.stringify(o)}: parsed ${JSON.stringify(direct.text)} / ${JSON.stringify(classic.text)}, holding ${direct.readableLength} / ${classic.readableLength} records`)
      }
    }
    both.forEach((p) => { while (p.writableCorked > 0) p.uncork() })
    await tick()
    const held = both.map((p) => p.readableLength)
    if (endEarly) both.forEach((p) => p.end())
    await tick()
    if (inStep) {
      if (direct.readableLength !== classic.readableLength) throw new Error('the end ran before its records were read on one side only')
    } else if (both.some((p, k) => held[k]! >= p.readableHighWaterMark && p.readableLength !== held[k])) {
      // out of step, each side must still hold its end behind its full readable side
      throw new Error('the end ran while the readable side was full')
    }
    if (!endEarly) both.forEach((p) => p.end())
    // read to the end
    await Promise.all(both.map(async (p, k) => { for await (const r of p) got[k]!.push(r as DiffRecord) }))
    if (json(got[0]) !== json(got[1])) throw new Error('different records')
    const blocks = apply([], got[0])
    if (json(blocks) !== json(parseAssistantMessage(direct.text, { final: true, idGenerator: counter() }))) throw new Error('records do not add up to the parse')
  }), {
    numRuns: 300,
    // out of step (see inStep), then ended, or written and uncorked: found by a CI run and by
    // local runs of 5,000
    examples: [
      ...[false, true].map((endEarly) => [[{ kind: 'write', c: 'a' }, { kind: 'write', c: 'a' }, { kind: 'cork', c: '' }, { kind: 'read', c: '' }, { kind: 'read', c: '' }], 1, endEarly] as [Op[], number, boolean]),
      [[{ kind: 'write', c: 'a' }, { kind: 'writecb', c: 'x' }, { kind: 'cork', c: '' }, { kind: 'read', c: '' }, { kind: 'read', c: '' }, { kind: 'write', c: 'a' }, { kind: 'uncork', c: '' }], 1, false],
    ],
  })
  t.pass('direct writes and Writable writes agree step by step')
})

t.test('corked, a write waits in the Writable; uncorked, it is parsed', async (t) => {
  const p = new BlockParser({ idGenerator: counter() })
  p.resume()
  p.write('Hi ')
  p.cork()
  p.write('there')
  t.equal(p.text, 'Hi ', 'not parsed while corked')
  t.equal(p.writableLength, 1)
  p.uncork()
  t.equal(p.text, 'Hi there')
  p.write('!')
  t.equal(p.text, 'Hi there!', 'idle again: parsed at once')
})

t.test('after end() or destroy(), a write is the Writable\'s: refused, nothing parsed', async (t) => {
  const ended = new BlockParser({ idGenerator: counter() })
  ended.resume()
  ended.write('Hi ')
  ended.write('there')
  ended.end()
  const failed = once(ended, 'error')
  t.equal(ended.write(' more'), false)
  const [err] = await failed
  t.equal((err as { code?: string }).code, 'ERR_STREAM_WRITE_AFTER_END')
  t.equal(ended.text, 'Hi there')
  const destroyed = new BlockParser({ idGenerator: counter() })
  destroyed.on('error', () => {})
  destroyed.write('Hi ')
  destroyed.write('there')
  destroyed.destroy()
  t.equal(destroyed.write(' more'), false)
  await once(destroyed, 'close')
  t.equal(destroyed.text, 'Hi there')
})

t.test('a direct write that fills the readable side holds the next chunk unparsed and the end until a read', async (t) => {
  const p = new BlockParser({ highWaterMark: 2, idGenerator: counter() })
  t.equal(p.write('a'), true)
  t.equal(p.write('b'), true, 'true, as the Writable returns for a chunk whose callback is held')
  t.equal(p.readableLength, 2)
  p.write('c')
  p.write('d')
  t.equal(p.text, 'ab', 'what follows the chunk that filled the readable side is not parsed')
  t.equal(p.writableLength, 2, 'it waits in the Writable, counted')
  p.read()
  t.equal(p.text, 'abc', 'a read lets the held chunk in')
  const q = new BlockParser({ highWaterMark: 2, idGenerator: counter() })
  q.write('Hi <read_file>')
  q.write('<path>a</path>')
  const full = q.readableLength
  q.end()
  await new Promise((r) => setImmediate(r))
  t.equal(q.readableLength, full, 'the end waits for a read too (its complete diffs are not pushed yet)')
  const recs: DiffRecord[] = []
  for await (const r of q) recs.push(r as DiffRecord)
  t.same(apply([], recs), parseAssistantMessage('Hi <read_file><path>a</path>', { final: true, idGenerator: counter() }))
})

t.test('destroy() mid-stream emits close; errors reject pipeline; signal aborts', async (t) => {
  const parser = new BlockParser()
  parser.write('Hello <read_file><path>a')
  const closed = new Promise((r) => parser.once('close', r))
  parser.destroy()
  await closed
  t.equal(parser.destroyed, true)
  t.equal(parser.blocks.length, 2, 'blocks stay readable after destroy')

  const ac = new AbortController()
  const p2 = new BlockParser({ signal: ac.signal })
  const src = new PassThrough()
  const run = pipeline(src, p2, new Writable({ objectMode: true, write(_d, _e, cb) { cb() } }))
  src.write('Hi')
  ac.abort()
  await t.rejects(run, { name: 'AbortError' })
})

t.test('parseStream and the web TransformStream give the BlockParser\'s records', async (t) => {
  const chunks = ['I will ', 'read <read_', 'file><path>a.ts</pa', 'th></read_file> ok']
  const viaStream = drive(chunks)
  const expected = [...viaStream.perChunk.flat(), ...viaStream.tail]
  const viaIter: DiffRecord[] = []
  for await (const r of parseStream(chunks, { idGenerator: counter() })) viaIter.push(r as DiffRecord)
  t.same(viaIter, expected)
  const web = new ReadableStream<string>({ start(c) { for (const x of chunks) c.enqueue(x); c.close() } }).pipeThrough(createWebBlockParser({ idGenerator: counter() }))
  const viaWeb: DiffRecord[] = []
  for await (const r of web as unknown as AsyncIterable<DiffRecord>) viaWeb.push(r)
  t.same(viaWeb, expected)
  await t.rejects(async () => { for await (const _ of parseStream([1 as unknown as string])) void _ }, { code: 'ERR_INVALID_CHUNK' })
})

t.test('call ids are stable for the life of the stream', async (t) => {
  const { perChunk, tail } = drive(fixedChunks('<read_file><path>a</path></read_file><read_file><path>b', 2), { idGenerator: undefined })
  const ids = new Set<string>()
  for (const d of [...perChunk.flat(), ...tail]) if ((d.op === 'add' || d.op === 'replace') && d.block.type === 'tool_use') ids.add(d.block.call_id)
  t.equal(ids.size, 2, 'one id per tool, never redrawn')
})

t.test('bad options give ERR_INVALID_OPTION', async (t) => {
  t.throws(() => new BlockParser({ reparse: 'sometimes' as 'full' }), { code: 'ERR_INVALID_OPTION' })
  t.throws(() => new BlockParser({ emit: 'all' as 'diffs' }), { code: 'ERR_INVALID_OPTION' })
  t.throws(() => new BlockParser({ maxBytes: -1 }), { code: 'ERR_INVALID_OPTION' })
})
