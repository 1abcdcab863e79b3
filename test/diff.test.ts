// diffBlocks / applyDiff / toJsonPatch laws.
import t from 'tap'
import fc from 'fast-check'
import jsonpatch from 'fast-json-patch'
import { applyDiff, diffBlocks, toJsonPatch, parseAssistantMessage, BlockAccumulator, type Block, type BlockDiff } from '../lib/index.js'
import { pastPrefix } from '../lib/diff/diff.js'
import { soup, counter } from './helpers/arb.js'

const applyAll = (blocks: Block[], diffs: BlockDiff[]): Block[] => diffs.reduce(applyDiff, blocks)

// pairs of snapshots: two prefixes of one soup (what a stream sees) and two unrelated soups
const pair = fc.oneof(
  soup.chain((s) => fc.tuple(fc.nat(s.length), fc.nat(s.length)).map(([a, b]) => {
    const ids = counter()
    const [x, y] = a < b ? [a, b] : [b, a]
    const shared = parseAssistantMessage(s.slice(0, x), { idGenerator: ids })
    return [shared, parseAssistantMessage(s.slice(0, y), { idGenerator: counter() })] as const
  })),
  fc.tuple(soup, soup).map(([a, b]) => [parseAssistantMessage(a, { idGenerator: counter() }), parseAssistantMessage(b, { idGenerator: counter() })] as const),
)

t.test('applying diffBlocks(prev, next) to prev gives next (applyDiff and BlockAccumulator)', async (t) => {
  fc.assert(fc.property(pair, ([prev, next]) => {
    const diffs = diffBlocks(prev, next)
    const got = applyAll(prev, diffs)
    if (JSON.stringify(got) !== JSON.stringify(next)) throw new Error(`mismatch ${JSON.stringify(got)} vs ${JSON.stringify(next)}`)
    const acc = new BlockAccumulator(prev)
    for (const d of diffs) acc.apply(d)
    if (JSON.stringify(acc.blocks) !== JSON.stringify(next)) throw new Error(`accumulator mismatch ${JSON.stringify(acc.blocks)} vs ${JSON.stringify(next)}`)
  }), { numRuns: 2000 })
  t.pass('held on 2000 pairs')
})

t.test('toJsonPatch applied by an RFC 6902 implementation gives the same array', async (t) => {
  fc.assert(fc.property(pair, ([prev, next]) => {
    let doc = structuredClone(prev) as Block[]
    for (const d of diffBlocks(prev, next)) {
      const ops = toJsonPatch(d, doc)
      doc = jsonpatch.applyPatch(doc, ops as jsonpatch.Operation[], true, false).newDocument
    }
    if (JSON.stringify(doc) !== JSON.stringify(next)) throw new Error(`json patch mismatch ${JSON.stringify(doc)} vs ${JSON.stringify(next)}`)
  }), { numRuns: 1000 })
  t.pass('held on 1000 pairs')
})

t.test('diffs are minimal for growth and empty for no change', async (t) => {
  const a: Block[] = [{ type: 'text', content: 'Hel', partial: true }]
  const b: Block[] = [{ type: 'text', content: 'Hello', partial: false }]
  t.same(diffBlocks(a, b), [{ op: 'append', index: 0, path: 'content', text: 'lo' }, { op: 'complete', index: 0 }])
  t.same(diffBlocks(b, b), [])
  t.same(diffBlocks(b, []), [{ op: 'truncate', length: 0 }])
  t.same(diffBlocks([{ type: 'text', content: 'Hello <r', partial: true }], [{ type: 'text', content: 'Hello', partial: false }]),
    [{ op: 'set', index: 0, path: 'content', value: 'Hello' }, { op: 'complete', index: 0 }])
})

t.test('applyDiff does not mutate its input and rejects diffs that do not fit', async (t) => {
  const a: Block[] = Object.freeze([Object.freeze({ type: 'text', content: 'x', partial: true })]) as Block[]
  const b = applyDiff(a, { op: 'append', index: 0, path: 'content', text: 'y' })
  t.equal(a[0]!.type === 'text' && a[0]!.content, 'x')
  t.equal(b[0]!.type === 'text' && b[0]!.content, 'xy')
  t.throws(() => applyDiff(a, { op: 'add', index: 5, block: a[0]! }), { code: 'ERR_INVALID_DIFF' })
  t.throws(() => applyDiff(a, { op: 'complete', index: 3 }), { code: 'ERR_INVALID_DIFF' })
  t.throws(() => applyDiff(a, { op: 'set', index: 0, path: 'params.x', value: '' }), { code: 'ERR_INVALID_DIFF' })
  t.throws(() => applyDiff(a, { op: 'truncate', length: 2 }), { code: 'ERR_INVALID_DIFF' })
  t.throws(() => applyDiff(a, { op: 'nope' } as unknown as BlockDiff), { code: 'ERR_INVALID_DIFF' })
})

t.test('toJsonPatch escapes param names and needs the array for append and truncate', async (t) => {
  t.same(toJsonPatch({ op: 'set', index: 1, path: 'params.a/b~c', value: 'v' }), [{ op: 'add', path: '/1/params/a~1b~0c', value: 'v' }])
  t.same(toJsonPatch({ op: 'complete', index: 2 }), [{ op: 'replace', path: '/2/partial', value: false }])
  t.throws(() => toJsonPatch({ op: 'append', index: 0, path: 'content', text: 'x' }), { code: 'ERR_INVALID_DIFF' })
  t.throws(() => toJsonPatch({ op: 'truncate', length: 0 }), { code: 'ERR_INVALID_DIFF' })
})

t.test('pastPrefix: (a + b) past a prefix, or null, without joining a and b', async (t) => {
  const law = (a: string, b: string, prefix: string): string | null => ((a + b).startsWith(prefix) ? (a + b).slice(prefix.length) : null)
  // short alphabets and lengths past 32 (hasPrefix compares long prefixes by a cut and ===)
  const str = fc.string({ unit: fc.constantFrom('<', '/', 'a', ' '), maxLength: 40 })
  let matched = 0
  fc.assert(fc.property(str, str, fc.nat(90), str, fc.boolean(), (a, b, cut, other, ofJoin) => {
    // half the prefixes are a prefix of a + b (cut anywhere in it), the others arbitrary
    const prefix = ofJoin ? (a + b).slice(0, cut) : other
    const got = pastPrefix(a, b, prefix)
    if (got !== null) matched++
    return got === law(a, b, prefix)
  }), { numRuns: 5000 })
  t.ok(matched > 1000, `the law was checked on ${matched} prefixes that match`)
})
