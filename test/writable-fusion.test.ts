// BlockParser → object-mode Writable fusion (issue 16): while an ordinary Writable is the
// parser's one reader through `pipe`, a record is written to it directly instead of through the
// readable side, `data` event and pipe handler, but only when that write cannot ask for a pause.
// Nothing a caller sees may change but `readableDidRead`: these tests run the same streams fused
// and not fused and compare. The unfused runs give the Writable a `write` of its own that calls
// Node's: that prevents the fusion and changes nothing else (an extra `data` listener on the
// parser would also prevent it, but it is a second reader, and `pipe` resumes a parser that still
// has one when it lets go).
import t from 'tap'
import fc from 'fast-check'
import { PassThrough, Readable, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { once } from 'node:events'
import { setImmediate as tick } from 'node:timers/promises'
import { createBlockParser, type BlockParser, type DiffRecord } from '../lib/index.js'
import { counter, cutBySizes, messagePiece, sameFusedOrNot } from './helpers/arb.js'

/** The Writable the parser writes to directly, or null. */
const fusedTo = (p: BlockParser): unknown => {
  const f = (p as unknown as { out: { fused: { dest?: unknown } | null } }).out.fused
  return f === null ? null : f.dest ?? f
}

/** Gives `w` a `write` of its own that calls Node's: the parser does not fuse with it. */
function unfusable(w: Writable): void {
  w.write = function (this: Writable, ...args: unknown[]) { return Reflect.apply(Writable.prototype.write, this, args) as boolean }
}

interface Setup {
  chunks: string[]
  /** per record written, in turn: does the sink call back at once or on a later tick */
  asyncWrite: boolean[]
  sinkHwm: number
  parserHwm: number
  /** the sink fails the write of this record (counted from 0), if any */
  failAt: number | null
  failAsync: boolean
  /** the sink is corked while it takes this record, and uncorked a tick later */
  corkAt: number | null
}

/** Everything a caller sees of one run. */
async function run(s: Setup, fused: boolean): Promise<{ log: string[]; fusedAtStart: boolean }> {
  const log: string[] = []
  let n = 0
  const sink = new Writable({
    objectMode: true,
    highWaterMark: s.sinkHwm,
    write(record: DiffRecord, _e, cb) {
      const k = n++
      log.push(`write ${JSON.stringify(record)} buffered ${sink.writableLength}`)
      if (k === s.corkAt) {
        sink.cork()
        setImmediate(() => sink.uncork())
      }
      const err = k === s.failAt ? new Error('sink failed') : null
      if (s.asyncWrite[k % s.asyncWrite.length] || (err !== null && s.failAsync)) setImmediate(() => cb(err))
      else cb(err)
    },
  })
  sink.on('drain', () => log.push('drain'))
  sink.on('error', (e) => log.push(`sink error ${e.message}`))
  const parser = createBlockParser({ idGenerator: counter('id'), highWaterMark: s.parserHwm })
  parser.on('pause', () => log.push('parser pause'))
  parser.on('resume', () => log.push('parser resume'))
  if (!fused) unfusable(sink)
  let fusedAtStart = false
  sink.once('pipe', () => setImmediate(() => { fusedAtStart = fusedTo(parser) === sink }))
  // the source yields to the event loop between some chunks, as a socket does
  const src = Readable.from((async function* () {
    let i = 0
    for (const c of s.chunks) {
      if (i++ % 3 === 0) await tick()
      yield c
    }
  })())
  try {
    await pipeline(src, parser, sink)
    log.push('resolved')
  } catch (err) {
    log.push(`rejected ${(err as Error).message}`)
  }
  log.push(`blocks ${JSON.stringify(parser.blocks)}`)
  log.push(`parser destroyed ${parser.destroyed}`)
  return { log, fusedAtStart }
}

const setup: fc.Arbitrary<Setup> = fc.record({
  text: fc.array(messagePiece, { minLength: 1, maxLength: 8 }).map((p) => p.join('')),
  sizes: fc.array(fc.constantFrom(1, 3, 7, 16, 24), { minLength: 1, maxLength: 4 }),
  asyncWrite: fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }),
  sinkHwm: fc.constantFrom(1, 2, 3, 16),
  parserHwm: fc.constantFrom(1, 2, 16),
  failAt: fc.option(fc.integer({ min: 0, max: 30 }), { freq: 3 }),
  failAsync: fc.boolean(),
  corkAt: fc.option(fc.integer({ min: 0, max: 30 }), { freq: 3 }),
}).map(({ text, sizes, ...rest }) => ({ chunks: cutBySizes(text, sizes), ...rest }))

t.test('fused or not, a pipeline into a Writable writes, pauses, fails and ends the same (property)', async (t) => {
  const sawFused = await sameFusedOrNot(setup, run, 200)
  // the property compares something only if the fused runs were fused
  t.ok(sawFused > 100, `fused in ${sawFused} of 200 runs`)
})

t.test('piped alone into an object-mode Writable, the parser writes every record to it directly', async (t) => {
  const got: DiffRecord[] = []
  const parser = createBlockParser()
  const sink = new Writable({ objectMode: true, write(r: DiffRecord, _e, cb) { got.push(r); cb() } })
  const done = pipeline(Readable.from(['Hello ', 'there. ', 'Bye.']), parser, sink)
  // pipeline pipes synchronously
  t.equal(fusedTo(parser), sink)
  await done
  t.same(got.map((r) => r.op), ['add', 'append', 'append', 'complete'])
  // the one visible difference: no record went through the readable side
  t.equal(parser.readableDidRead, false)
})

t.test('an object-mode Duplex is fused; a byte Writable and a Writable with its own write are not', async (t) => {
  const p1 = createBlockParser()
  const through = new PassThrough({ objectMode: true })
  p1.pipe(through)
  t.equal(fusedTo(p1), through, 'an object-mode PassThrough')
  const p2 = createBlockParser()
  const bytes = new Writable({ write(_c, _e, cb) { cb() } })
  p2.pipe(bytes)
  t.equal(fusedTo(p2), null, 'a Writable not in object mode')
  class Counting extends Writable {
    n = 0
    override write(chunk: unknown, ...rest: unknown[]): boolean {
      this.n++
      return Reflect.apply(Writable.prototype.write, this, [chunk, ...rest]) as boolean
    }
  }
  const p3 = createBlockParser()
  const counting = new Counting({ objectMode: true, write(_c, _e, cb) { cb() } })
  p3.pipe(counting)
  t.equal(fusedTo(p3), null, 'a Writable that overrides write (it may refuse for its own reasons)')
  p3.end('text')
  await once(counting, 'finish')
  t.equal(counting.n, 2, 'its write saw every record, through pipe')
})

t.test('unpipe ends the fusion, with or without naming the Writable; later records stay in the parser', async (t) => {
  for (const named of [true, false]) {
    const got: DiffRecord[] = []
    const parser = createBlockParser()
    const sink = new Writable({ objectMode: true, write(r: DiffRecord, _e, cb) { got.push(r); cb() } })
    parser.pipe(sink)
    parser.write('First. ')
    t.equal(got.length, 1)
    if (named) parser.unpipe(sink)
    else parser.unpipe()
    t.equal(fusedTo(parser), null, named ? 'unpipe(sink)' : 'unpipe()')
    parser.write('Second.')
    await tick()
    t.equal(got.length, 1, 'the Writable got nothing after the unpipe')
    t.same(parser.read(), { op: 'append', index: 0, path: 'content', text: ' Second.' }, 'the record waits in the parser')
  }
})

t.test('unpiping another stream leaves the fusion in place', async (t) => {
  const parser = createBlockParser()
  const sink = new Writable({ objectMode: true, write(_r, _e, cb) { cb() } })
  parser.pipe(sink)
  parser.unpipe(new Writable({ objectMode: true }))
  t.equal(fusedTo(parser), sink)
})

t.test('a data listener added mid-stream ends the fusion: it and the Writable each get every later record, in order', async (t) => {
  const parser = createBlockParser()
  const got: DiffRecord[] = []
  const sink = new Writable({ objectMode: true, write(r: DiffRecord, _e, cb) { got.push(r); cb() } })
  parser.pipe(sink)
  t.equal(fusedTo(parser), sink)
  parser.write('One. ')
  const seen: DiffRecord[] = []
  parser.on('data', (d: DiffRecord) => seen.push(d))
  t.equal(fusedTo(parser), null, 'a second reader ends the fusion')
  parser.write('Two. ')
  parser.end('Three.')
  await once(sink, 'finish')
  t.same(seen.map((d) => d.op), ['append', 'append', 'complete'])
  t.same(got.map((d) => d.op), ['add', 'append', 'append', 'complete'])
})

t.test('a Writable whose buffer is full gets the record through pipe, which pauses the parser until drain', async (t) => {
  const logs: string[][] = []
  for (const fused of [true, false]) {
    const log: string[] = []
    const parser = createBlockParser()
    const callbacks: (() => void)[] = []
    const sink = new Writable({ objectMode: true, highWaterMark: 2, write(r: DiffRecord, _e, cb) { log.push(`write ${r.op}`); callbacks.push(() => cb()) } })
    if (!fused) unfusable(sink)
    parser.pipe(sink)
    parser.on('pause', () => log.push('pause'))
    parser.on('resume', () => log.push('resume'))
    for (const c of ['a ', 'b ', 'c ', 'd ']) parser.write(c)
    log.push(`paused ${parser.isPaused()} buffered ${sink.writableLength} held ${parser.readableLength}`)
    while (callbacks.length > 0) {
      callbacks.shift()!()
      await tick()
    }
    log.push(`paused ${parser.isPaused()} held ${parser.readableLength}`)
    logs.push(log)
  }
  t.same(logs[0], logs[1])
  t.match(logs[0]!.join('\n'), /pause\npaused true buffered 2 held 2/, 'the second write filled the Writable and paused the parser')
  t.match(logs[0]!.join('\n'), /resume/, 'drain resumed it')
  t.match(logs[0]![logs[0]!.length - 1], 'paused false held 0')
})

t.test('a write that fails the Writable at once pauses the parser, as pipe does', async (t) => {
  for (const fused of [true, false]) {
    const parser = createBlockParser()
    const sink = new Writable({ objectMode: true, write(_r, _e, cb) { cb(new Error('no')) } })
    sink.on('error', () => {})
    if (!fused) unfusable(sink)
    parser.pipe(sink)
    parser.write('one')
    t.equal(parser.isPaused(), true, `${fused ? 'fused' : 'not fused'}: paused after the failed write`)
    parser.write(' two')
    t.equal(parser.readableLength, 1, `${fused ? 'fused' : 'not fused'}: the next record waits in the parser`)
  }
})
