// BlockParser → Presenter fusion (issue 16): while the Presenter is the parser's one reader
// through `pipe`, a record goes straight to it instead of through the readable side. Nothing a
// caller sees may change but `readableDidRead`: these tests run the same streams fused and not
// fused (an extra `data` listener on the parser prevents the fusion) and compare everything.
import t from 'tap'
import fc from 'fast-check'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { once } from 'node:events'
import { setImmediate as tick } from 'node:timers/promises'
import { createBlockParser, createPresenter, type BlockParser, type Presenter, type DiffRecord } from '../lib/index.js'
import { counter, cutBySizes, messagePiece, sameFusedOrNot } from './helpers/arb.js'

const fusedTo = (p: BlockParser): unknown => (p as unknown as { out: { fused: unknown } }).out.fused

interface Setup {
  chunks: string[]
  asyncSay: boolean[]
  asyncTool: boolean[]
  partials: boolean
  parallel: boolean
  presenterHwm: number
  parserHwm: number
}

/** Everything a caller sees of one run. */
async function run(s: Setup, fused: boolean): Promise<{ log: string[]; fusedAtStart: boolean }> {
  const log: string[] = []
  let says = 0
  let tools = 0
  const presenter = createPresenter({
    highWaterMark: s.presenterHwm,
    parallelToolCalls: s.parallel,
    say: (m) => {
      log.push(`say ${m.type} ${m.partial} ${JSON.stringify(m.content)}`)
      if (s.asyncSay[says++ % s.asyncSay.length]) return tick().then(() => undefined)
      return undefined
    },
    onToolPartial: s.partials ? (b) => { log.push(`partial ${b.name} ${JSON.stringify(b.params)}`) } : undefined,
    executeTool: (b) => {
      log.push(`execute ${b.name} ${JSON.stringify(b.params)}`)
      const r = `did ${b.name}`
      return s.asyncTool[tools++ % s.asyncTool.length] ? tick().then(() => r) : r
    },
  })
  presenter.on('interrupt', (i) => log.push(`interrupt ${i.reason} ${i.note}`))
  presenter.on('ready', (r) => log.push(`ready ${r.length}`))
  // the Writable's own bookkeeping shows too: a record that went through it may emit `drain`
  presenter.on('drain', () => log.push('drain'))
  const parser = createBlockParser({ idGenerator: counter('id'), highWaterMark: s.parserHwm })
  if (!fused) parser.on('data', () => {})
  let fusedAtStart = false
  presenter.once('pipe', () => setImmediate(() => { fusedAtStart = fusedTo(parser) === presenter }))
  // the source yields to the event loop between chunks, as a socket does
  const src = Readable.from((async function* () {
    for (const c of s.chunks) {
      await tick()
      yield c
    }
  })())
  try {
    await pipeline(src, parser, presenter)
    log.push('resolved')
  } catch (err) {
    log.push(`rejected ${(err as Error).name} ${(err as { code?: string }).code ?? ''}`)
  }
  log.push(`results ${JSON.stringify(presenter.results)}`)
  log.push(`blocks ${JSON.stringify(presenter.blocks)}`)
  return { log, fusedAtStart }
}

const setup: fc.Arbitrary<Setup> = fc.record({
  text: fc.array(messagePiece, { minLength: 1, maxLength: 8 }).map((p) => p.join('')),
  sizes: fc.array(fc.integer({ min: 1, max: 24 }), { minLength: 1, maxLength: 5 }),
  asyncSay: fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }),
  asyncTool: fc.array(fc.boolean(), { minLength: 1, maxLength: 3 }),
  partials: fc.boolean(),
  parallel: fc.boolean(),
  presenterHwm: fc.constantFrom(1, 2, 16),
  parserHwm: fc.constantFrom(1, 2, 16),
}).map(({ text, sizes, ...rest }) => ({ chunks: cutBySizes(text, sizes), ...rest }))

t.test('fused or not, a pipeline shows, runs and ends the same (property)', async (t) => {
  const sawFused = await sameFusedOrNot(setup, run, 150)
  // the property compares something only if the fused runs were fused
  t.ok(sawFused > 100, `fused in ${sawFused} of 150 runs`)
})

t.test('piped alone into a Presenter, the parser hands it every record directly', async (t) => {
  const says: string[] = []
  const parser = createBlockParser()
  const presenter = createPresenter({ say: (m) => { says.push(m.content) }, executeTool: () => 'ok' })
  const done = pipeline(Readable.from(['Hello ', 'there. ', 'Bye.']), parser, presenter)
  // pipeline pipes synchronously
  t.equal(fusedTo(parser), presenter)
  await done
  t.same(says, ['Hello', 'Hello there.', 'Hello there. Bye.', 'Hello there. Bye.'])
  // the one visible difference: no record went through the readable side
  t.equal(parser.readableDidRead, false)
})

t.test('a data listener added mid-stream ends the fusion: it and the Presenter each get every later record, in order', async (t) => {
  const parser = createBlockParser()
  const says: string[] = []
  const presenter = createPresenter({ say: (m) => { says.push(m.content) }, executeTool: () => 'ok' })
  parser.pipe(presenter)
  t.equal(fusedTo(parser), presenter)
  parser.write('One. ')
  const seen: DiffRecord[] = []
  parser.on('data', (d: DiffRecord) => seen.push(d))
  t.equal(fusedTo(parser), null, 'a second reader ends the fusion')
  parser.write('Two. ')
  parser.end('Three.')
  await once(presenter, 'finish')
  t.same(seen.map((d) => d.op), ['append', 'append', 'complete'])
  t.same(says, ['One.', 'One. Two.', 'One. Two. Three.', 'One. Two. Three.'])
})

t.test('after unpipe, records stay in the parser', async (t) => {
  const parser = createBlockParser()
  const presenter = createPresenter({ executeTool: () => 'ok' })
  parser.pipe(presenter)
  parser.write('First. ')
  await tick()
  parser.unpipe(presenter)
  t.equal(fusedTo(parser), null)
  parser.write('Second.')
  await tick()
  t.same(presenter.blocks, [{ type: 'text', content: 'First.', partial: true }], 'the Presenter got nothing after the unpipe')
  const left = parser.read() as DiffRecord
  t.same(left, { op: 'append', index: 0, path: 'content', text: ' Second.' }, 'the record waits in the parser')
})

t.test('records made inside _read (held chunks released) arrive in order, as unfused', async (t) => {
  // a readable side of one record and a Presenter whose updates go async: chunks are held by the
  // parser and released from its `_read`, where a record must be pushed, not offered
  const logs: string[][] = []
  for (const fused of [true, false]) {
    const parser = createBlockParser({ highWaterMark: 1 })
    const says: string[] = []
    const presenter: Presenter = createPresenter({
      highWaterMark: 2,
      say: async (m) => { says.push(m.content); await tick() },
      executeTool: () => 'ok',
    })
    if (!fused) parser.on('data', () => {})
    await pipeline(Readable.from(['a ', 'b ', 'c ', 'd ', 'e']), parser, presenter)
    logs.push(says)
  }
  t.same(logs[0], logs[1])
  t.equal(logs[0]![logs[0]!.length - 1], 'a b c d e', 'every record arrived')
})

t.test('a corked Presenter takes no offered record: it is buffered until uncork, as a piped write is', async (t) => {
  for (const fused of [true, false]) {
    const parser = createBlockParser()
    const says: string[] = []
    const presenter = createPresenter({ say: (m) => { says.push(m.content) }, executeTool: () => 'ok' })
    if (!fused) parser.on('data', () => {})
    parser.pipe(presenter)
    t.equal(fusedTo(parser), fused ? presenter : null)
    presenter.cork()
    parser.write('Held ')
    parser.write('back.')
    await tick()
    t.same(says, [], `${fused ? 'fused' : 'not fused'}: nothing presented while corked`)
    presenter.uncork()
    await tick()
    t.same(says, ['Held back.'], `${fused ? 'fused' : 'not fused'}: the two records together after uncork (SPEC 7.10)`)
  }
})

t.test('a hook that writes to the parser: the record it makes waits for the presentation in flight, fused or not', async (t) => {
  const logs: string[][] = []
  for (const fused of [true, false]) {
    const parser = createBlockParser()
    const log: string[] = []
    let first = true
    const presenter = createPresenter({
      say: (m) => {
        log.push(`say ${JSON.stringify(m.content)} ${m.partial}`)
        if (first) {
          first = false
          // made while this update is presented: presented after it
          parser.write(' more')
          log.push('wrote')
        }
      },
      executeTool: () => 'ok',
    })
    if (!fused) parser.on('data', () => {})
    parser.pipe(presenter)
    parser.write('Start')
    parser.end(' end.')
    await once(presenter, 'finish')
    logs.push(log)
  }
  t.same(logs[0], logs[1])
  t.same(logs[0], ['say "Start" true', 'wrote', 'say "Start more" true', 'say "Start more end." true', 'say "Start more end." false'])
})
