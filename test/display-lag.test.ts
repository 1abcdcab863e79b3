// The Display's lag (issue 16): while the cleaner appends verbatim, pieces without `<` (or whose
// every `<` is dead within them) are kept back and shown as the cleaner's last display plus the
// pieces. These properties drive it through long prose (past the 128 pieces it keeps), pieces
// with `<` between, `set`s, new blocks, corked batches and `cadenceMs`, and hold every update to
// the pure cleaning of the text it showed.
import t from 'tap'
import fc from 'fast-check'
import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import { createPresenter, cleanDisplayText, type SayMessage, type DiffRecord } from '../lib/index.js'

type Op =
  | { kind: 'append'; text: string }
  | { kind: 'prose'; count: number; piece: string }
  | { kind: 'set'; value: string; grow: boolean }
  | { kind: 'next' }
  | { kind: 'cork' }
  | { kind: 'uncork' }
  | { kind: 'wait' }
  | { kind: 'batch'; texts: string[] }

const prosePiece = fc.constantFrom('word ', 'a', '', ' ', '\n', 'x.y, ', 'é', '😀', '3', '-', '`', '\t', 'plan it')
// with pieces whose every `<` is dead within them (`<br>`, `a <= b`), which the lag takes too
const ltPiece = fc.constantFrom('<', '</', '<thinking>', '</thinking>', '<think>', '1 < 2', '<b c', '<read_fi', '```xml', '```', '<function_calls>', '>', '<br>', 'a <= b', 'Map<string, T> ', '</p>', '<b')
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.oneof(prosePiece, ltPiece).map((text) => ({ kind: 'append' as const, text })) },
  // a run of prose long enough to pass LAG_MAX (128 pieces) now and then
  { weight: 3, arbitrary: fc.tuple(fc.integer({ min: 1, max: 300 }), prosePiece).map(([count, piece]) => ({ kind: 'prose' as const, count, piece })) },
  { weight: 1, arbitrary: fc.tuple(fc.oneof(prosePiece, ltPiece), fc.boolean()).map(([value, grow]) => ({ kind: 'set' as const, value, grow })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'next' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'cork' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'uncork' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'wait' as const }) },
  // appends applied together (corked: one `_writev`), with one update after the last
  { weight: 2, arbitrary: fc.array(fc.oneof(prosePiece, ltPiece), { minLength: 2, maxLength: 6 }).map((texts) => ({ kind: 'batch' as const, texts })) },
)

interface State { content: string; partial: boolean }

/**
 * Feeds `ops` to a Presenter as diffs of text blocks and returns what it said, with every state
 * of every block (one per diff record) in order.
 */
async function run(ops: Op[], cadenceMs: number): Promise<{ says: SayMessage[]; states: State[][] }> {
  const says: SayMessage[] = []
  const p = createPresenter({ say: (m) => { says.push(m) }, executeTool: () => '', cadenceMs })
  const states: State[][] = [[{ content: '', partial: true }]]
  let index = 0
  let content = ''
  const write = (r: DiffRecord, next: string): void => {
    p.write(r)
    content = next
    states[index]!.push({ content, partial: true })
  }
  p.write({ op: 'add', index: 0, block: { type: 'text', content: '', partial: true } })
  for (const o of ops) {
    if (o.kind === 'append') write({ op: 'append', index, path: 'content', text: o.text }, content + o.text)
    else if (o.kind === 'prose') for (let i = 0; i < o.count; i++) write({ op: 'append', index, path: 'content', text: o.piece }, content + o.piece)
    else if (o.kind === 'set') {
      const value = o.grow ? content + o.value : o.value
      write({ op: 'set', index, path: 'content', value }, value)
    } else if (o.kind === 'next') {
      p.write({ op: 'complete', index })
      states[index]!.push({ content, partial: false })
      index++
      content = ''
      p.write({ op: 'add', index, block: { type: 'text', content: '', partial: true } })
      states.push([{ content: '', partial: true }])
    } else if (o.kind === 'cork') p.cork()
    else if (o.kind === 'uncork') p.uncork()
    else if (o.kind === 'batch') {
      p.cork()
      for (const text of o.texts) write({ op: 'append', index, path: 'content', text }, content + text)
      p.uncork()
    } else await sleep(cadenceMs > 0 ? cadenceMs : 0)
  }
  while (p.writableCorked > 0) p.uncork()
  p.write({ op: 'complete', index })
  states[index]!.push({ content, partial: false })
  p.end()
  await once(p, 'finish')
  return { says, states }
}

/**
 * The updates the pure cleaning gives after every diff: a block's repeats left out, and a block
 * that so far cleans to nothing not shown (not even complete, if nothing of it was).
 */
function expected(states: State[][]): string[] {
  const want: string[] = []
  for (const block of states) {
    let last: string | undefined
    for (const s of block) {
      const shown = cleanDisplayText(s.content, s.partial)
      if (last === undefined ? shown === '' : s.partial && last === shown) continue
      want.push(s.partial ? shown : `final:${shown}`)
      last = shown
    }
  }
  return want
}

const tagged = (says: SayMessage[]): string[] => says.map((s) => s.partial ? s.content : `final:${s.content}`)

t.test('unbatched and unpaced, the updates are exactly the pure cleaning after every diff (property)', async (t) => {
  await fc.assert(fc.asyncProperty(fc.array(op.filter((o) => o.kind !== 'cork' && o.kind !== 'wait' && o.kind !== 'batch'), { maxLength: 30 }), async (ops) => {
    const { says, states } = await run(ops, 0)
    const got = tagged(says)
    const want = expected(states)
    if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error(`${JSON.stringify(ops)}\n got ${JSON.stringify(got)}\nwant ${JSON.stringify(want)}`)
  }), { numRuns: 300 })
  t.pass('held')
})

t.test('corked and paced, every update is the pure cleaning of a state it passed through, in order, and each block ends with its final one (property)', async (t) => {
  await fc.assert(fc.asyncProperty(fc.array(op, { maxLength: 24 }), fc.constantFrom(0, 1, 3), async (ops, cadenceMs) => {
    const { says, states } = await run(ops, cadenceMs)
    const got = tagged(says)
    // every state's cleaning, in order: each update must match a later one than the one before
    const all = states.flatMap((block) => block.map((s) => s.partial ? cleanDisplayText(s.content, true) : `final:${cleanDisplayText(s.content, false)}`))
    let at = 0
    for (let i = 0; i < got.length; i++) {
      while (at < all.length && all[at] !== got[i]) at++
      if (at === all.length) throw new Error(`${JSON.stringify(ops)} @${cadenceMs}: update ${i} ${JSON.stringify(got[i])} is no state's cleaning in order`)
      if (i > 0 && got[i - 1] === got[i]) throw new Error(`${JSON.stringify(ops)} @${cadenceMs}: update ${i} repeats ${JSON.stringify(got[i])}`)
      at++
    }
    // every block that cleans to something ends with its final update (one that cleans to nothing
    // has one only if something of it was shown)
    const finals = got.filter((u) => u.startsWith('final:')).length
    const nonEmpty = states.filter((block) => cleanDisplayText(block[block.length - 1]!.content, false) !== '').length
    if (finals < nonEmpty || finals > states.length) throw new Error(`${JSON.stringify(ops)} @${cadenceMs}: ${finals} final updates for ${nonEmpty}..${states.length} blocks`)
    const lastBlock = states[states.length - 1]!
    const lastFinal = cleanDisplayText(lastBlock[lastBlock.length - 1]!.content, false)
    if (lastFinal !== '' && got[got.length - 1] !== `final:${lastFinal}`) throw new Error(`${JSON.stringify(ops)} @${cadenceMs}: the last block does not end with its final update`)
  }), { numRuns: 150 })
  t.pass('held')
})

t.test('a long block without `<`, shown after every piece, is shown whole every time', async (t) => {
  const says: SayMessage[] = []
  const p = createPresenter({ say: (m) => { says.push(m) }, executeTool: () => '' })
  p.write({ op: 'add', index: 0, block: { type: 'text', content: 'Start. ', partial: true } })
  let content = 'Start. '
  const want = [content]
  for (let i = 0; i < 1000; i++) {
    // a `<` every 300 pieces: the lag is caught up there and at every 128th piece
    const piece = i % 300 === 299 ? ' a<b ' : `w${i} `
    p.write({ op: 'append', index: 0, path: 'content', text: piece })
    content += piece
    want.push(cleanDisplayText(content, true))
  }
  p.write({ op: 'complete', index: 0 })
  p.end()
  await once(p, 'finish')
  const wantDedup = want.filter((w, i) => i === 0 || w !== want[i - 1])
  t.same(says.slice(0, -1).map((s) => s.content), wantDedup)
  t.equal(says[says.length - 1]!.content, cleanDisplayText(content, false))
  t.equal(says[says.length - 1]!.partial, false)
})
