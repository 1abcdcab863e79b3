// Issue 11 items 5–6, issue 12 first half: every entry that applies a diff checks it
// (ERR_INVALID_DIFF), and no diff ever writes a prototype.
import t, { type Test } from 'tap'
import fc from 'fast-check'
import jsonpatch from 'fast-json-patch'
import { once } from 'node:events'
import * as lib from '../lib/index.js'
import {
  applyDiff, toJsonPatch, createPresenter, BlockAccumulator, TagstreamError,
  type Block, type BlockDiff, type ToolUseBlock, type ToolResult,
} from '../lib/index.js'
import { hostileRun, taintedRun, taintedRecords, checkSync, checkPresenter, builtinsFingerprint } from './helpers/hostile.mjs'

const three: Block[] = [
  { type: 'text', content: 'Hi', partial: false },
  { type: 'reasoning', reasoning: 'r', partial: true },
  { type: 'tool_use', name: 'read_file', params: { path: 'a' }, partial: true, call_id: 'c1', isNativeToolCall: false },
]
const bad = (d: unknown): BlockDiff => d as BlockDiff
const pristine = builtinsFingerprint()

function expectClean(t: Test): void {
  t.equal(([] as unknown as { partial?: unknown }).partial, undefined, '[].partial is undefined')
  t.equal((Array as unknown as { partial?: unknown }).partial, undefined, 'Array.partial is undefined')
  t.equal(builtinsFingerprint(), pristine, 'the built-ins are untouched')
}

/** A presenter fed `records` one by one; resolves once it finished or failed. */
async function present(records: unknown[]): Promise<{ error: unknown, results: ToolResult[], executed: ToolUseBlock[] }> {
  const executed: ToolUseBlock[] = []
  const p = createPresenter({ say: () => {}, parallelToolCalls: true, executeTool: (b) => { executed.push(structuredClone(b)); return 'ok' } })
  let error: unknown = null
  p.on('error', (e) => { error = e })
  for (const r of records) {
    if (p.destroyed) break
    await new Promise<void>((resolve) => p.write(r, () => resolve()))
  }
  if (!p.destroyed) {
    p.end()
    await once(p, 'finish')
  }
  await new Promise((r) => setImmediate(r))
  return { error, results: p.results, executed }
}

t.test('item 5: a diff at index __proto__ or constructor pollutes nothing', async (t) => {
  for (const index of ['__proto__', 'constructor']) {
    const d = bad({ op: 'complete', index })
    const run = await present([...three.map((block, i) => ({ op: 'add', index: i, block })), d])
    t.match(run.error, { code: 'ERR_INVALID_DIFF' }, `the Presenter fails its stream on index ${index}`)
    t.throws(() => applyDiff(three, d), { code: 'ERR_INVALID_DIFF' })
    t.throws(() => toJsonPatch(d, three), { code: 'ERR_INVALID_DIFF' })
    t.throws(() => new BlockAccumulator(three).apply(d), { code: 'ERR_INVALID_DIFF' })
    t.throws(() => applyDiff(three, bad({ op: 'replace', index, block: three[0] })), { code: 'ERR_INVALID_DIFF' })
  }
  expectClean(t)
})

t.test('the error names the diff and says what is wrong', async (t) => {
  t.throws(() => applyDiff(three, bad({ op: 'complete', index: '__proto__' })), {
    name: 'TagstreamError', code: 'ERR_INVALID_DIFF',
    message: "invalid diff {op:'complete',index:'__proto__'}: index must be an integer from 0 to 2",
  })
  const err = (() => { try { applyDiff([], bad({ op: 'append', index: 0, path: 'content', text: 'x'.repeat(5000) })) } catch (e) { return e } })()
  t.ok(err instanceof TagstreamError)
  t.match((err as Error).message, /^invalid diff \{op:'append',index:0,path:'content',text:'x+…'\}: there is no block$/)
  t.ok((err as Error).message.length < 300, 'a long diff is shortened in the message')
  t.same((err as TagstreamError).details['diff'], { op: 'append', index: 0, path: 'content', text: 'x'.repeat(5000) })
  t.throws(() => applyDiff(three, bad({ op: 'add', index: 2, block: three[0] })), { message: /an add must be at the end: index must be 3/ })
  t.throws(() => applyDiff(three, bad({ op: 'truncate', length: 4 })), { message: /length must be an integer from 0 to 3/ })
  t.throws(() => applyDiff(three, bad({ op: 'set', index: 0, path: 'reasoning', value: 'x' })), { message: /path 'reasoning' does not fit a text block/ })
  t.throws(() => applyDiff(three, bad({ op: 'set', index: 0, path: 'params.x', value: 'x' })), { message: /a params path does not fit a text block/ })
  t.throws(() => applyDiff(three, bad({ op: 'set', index: 2, path: 'content', value: 'x' })), { message: /path 'content' does not fit a tool_use block/ })
  t.throws(() => applyDiff(three, bad({ op: 'set', index: 2, path: 'name', value: 'x' })), { message: /path must be 'content', 'reasoning' or 'params.<name>'/ })
  t.throws(() => applyDiff(three, bad({ op: 'move', index: 0 })), { message: /op must be one of/ })
  t.throws(() => applyDiff(three, bad(Object.assign(Object.create(null) as object, { op: 1n }))), { code: 'ERR_INVALID_DIFF' }, 'a bigint does not break the message')
  const cyclic: Record<string, unknown> = { op: 'add', index: 3 }
  cyclic['block'] = cyclic
  t.throws(() => applyDiff(three, bad(cyclic)), { code: 'ERR_INVALID_DIFF' }, 'a cyclic diff does not break the message')
  const getter = { op: 'nope', get boom(): string { throw new Error('a getter that throws') } }
  t.throws(() => applyDiff(three, bad(getter)), { code: 'ERR_INVALID_DIFF', message: /^invalid diff \[unreadable\]: op must be/ }, 'nor does a getter that throws')
  t.throws(() => applyDiff(three, bad({ op: 'nope', f: () => 1, s: Symbol('s'), deep: { a: { b: 1 } }, list: [1, 2, 3, 4, 5, 6, [7]], k1: 1, k2: 2, k3: 3, k4: 4 })),
    { message: "invalid diff {op:'nope',f:[function],s:Symbol(s),deep:{a:{…}},list:[1,2,3,4,5,…],k1:1,k2:2,k3:3,…}: op must be one of 'add', 'append', 'set', 'complete', 'truncate', 'replace'" })
  t.throws(() => applyDiff(null as unknown as Block[], bad({ op: 'complete', index: 0 })), { code: 'ERR_INVALID_DIFF' })
  t.throws(() => toJsonPatch(bad({ op: 'complete', index: 0 }), {} as unknown as Block[]), { code: 'ERR_INVALID_DIFF' })
})

t.test('item 5: params are own properties; __proto__ is refused, constructor is an ordinary param', async (t) => {
  // an append to a param the block does not have, such as the inherited constructor
  const append = bad({ op: 'append', index: 2, path: 'params.constructor', text: 'x' })
  t.throws(() => applyDiff(three, append), { code: 'ERR_INVALID_DIFF' })
  t.throws(() => toJsonPatch(append, three), { code: 'ERR_INVALID_DIFF' })
  t.throws(() => new BlockAccumulator(three).apply(append), { code: 'ERR_INVALID_DIFF' })
  const proto = bad({ op: 'set', index: 2, path: 'params.__proto__', value: 'x' })
  t.throws(() => applyDiff(three, proto), { code: 'ERR_INVALID_DIFF', message: /a param may not be named '__proto__'/ })
  t.throws(() => toJsonPatch(proto), { code: 'ERR_INVALID_DIFF' })
  const parsed = JSON.parse('{"op":"add","index":3,"block":{"type":"tool_use","name":"x","params":{"__proto__":{"polluted":"yes"}},"partial":false,"call_id":"c","isNativeToolCall":false}}') as BlockDiff
  t.throws(() => applyDiff(three, parsed), { code: 'ERR_INVALID_DIFF' })

  // set then append on names that Object.prototype also has: own string params, nothing else
  let blocks = applyDiff(three, { op: 'set', index: 2, path: 'params.constructor', value: 'c' })
  blocks = applyDiff(blocks, { op: 'append', index: 2, path: 'params.constructor', text: 'x' })
  blocks = applyDiff(blocks, { op: 'set', index: 2, path: 'params.hasOwnProperty', value: 'h' })
  t.same((blocks[2] as ToolUseBlock).params, { path: 'a', constructor: 'cx', hasOwnProperty: 'h' })
  t.equal(JSON.stringify(blocks[2]), '{"type":"tool_use","name":"read_file","params":{"path":"a","constructor":"cx","hasOwnProperty":"h"},"partial":true,"call_id":"c1","isNativeToolCall":false}')
  t.equal(Object.getPrototypeOf((blocks[2] as ToolUseBlock).params), Object.prototype)
  const acc = new BlockAccumulator(three)
  for (const d of [
    { op: 'set', index: 2, path: 'params.constructor', value: 'c' },
    { op: 'append', index: 2, path: 'params.constructor', text: 'x' },
    { op: 'set', index: 2, path: 'params.hasOwnProperty', value: 'h' },
  ] as BlockDiff[]) acc.apply(d)
  t.same(acc.blocks, blocks)
  t.same(toJsonPatch({ op: 'append', index: 2, path: 'params.constructor', text: 'y' }, blocks), [{ op: 'replace', path: '/2/params/constructor', value: 'cxy' }])

  // the Presenter's executor gets exactly those strings, never "function Object() { [native code] }x"
  const run = await present([
    { op: 'add', index: 0, block: { ...three[2], params: {} } },
    { op: 'set', index: 0, path: 'params.constructor', value: 'c' },
    { op: 'append', index: 0, path: 'params.constructor', text: 'x' },
    { op: 'complete', index: 0 },
  ])
  t.equal(run.error, null)
  t.same(run.executed.map((b) => b.params), [{ constructor: 'cx' }])
  const hostile = await present([
    { op: 'add', index: 0, block: { ...three[2], params: {} } },
    { op: 'append', index: 0, path: 'params.constructor', text: 'x' },
    { op: 'complete', index: 0 },
  ])
  t.match(hostile.error, { code: 'ERR_INVALID_DIFF' })
  t.same(hostile.executed, [], 'nothing was executed')
  expectClean(t)
})

t.test('item 6: toJsonPatch and applyDiff trust no number, block or string', async (t) => {
  for (const length of [-5e6, -1e9, -1, 1.5, NaN, Infinity, 4, '2', null]) {
    t.throws(() => toJsonPatch(bad({ op: 'truncate', length }), []), { code: 'ERR_INVALID_DIFF' }, `truncate to ${String(length)} (toJsonPatch)`)
    t.throws(() => applyDiff(three, bad({ op: 'truncate', length })), { code: 'ERR_INVALID_DIFF' }, `truncate to ${String(length)} (applyDiff)`)
  }
  t.same(toJsonPatch({ op: 'truncate', length: 1 }, three), [{ op: 'remove', path: '/2' }, { op: 'remove', path: '/1' }])
  for (const index of [-1, 1.5, 3, 2 ** 32, 1e300, NaN, '0', null, undefined]) {
    t.throws(() => applyDiff(three, bad({ op: 'complete', index })), { code: 'ERR_INVALID_DIFF' }, `index ${String(index)}`)
    t.throws(() => toJsonPatch(bad({ op: 'complete', index }), three), { code: 'ERR_INVALID_DIFF' })
  }
  for (const index of [-1, 1.5, 2 ** 32, '0']) t.throws(() => toJsonPatch(bad({ op: 'complete', index })), { code: 'ERR_INVALID_DIFF' }, `index ${String(index)}, no array`)
  for (const block of [null, 5, 'text', [], { type: 'text', content: 5, partial: true }, { type: 'text', content: 'x' }, { type: 'image', partial: true }]) {
    t.throws(() => applyDiff(three, bad({ op: 'add', index: 3, block })), { code: 'ERR_INVALID_DIFF' }, `add ${JSON.stringify(block)}`)
    t.throws(() => applyDiff(three, bad({ op: 'replace', index: 0, block })), { code: 'ERR_INVALID_DIFF' })
    t.throws(() => toJsonPatch(bad({ op: 'add', index: 3, block })), { code: 'ERR_INVALID_DIFF' })
  }
  for (const text of [5, null, undefined, {}, ['x']]) {
    t.throws(() => applyDiff(three, bad({ op: 'append', index: 0, path: 'content', text })), { code: 'ERR_INVALID_DIFF' }, `text ${JSON.stringify(text)}`)
    t.throws(() => applyDiff(three, bad({ op: 'set', index: 0, path: 'content', value: text })), { code: 'ERR_INVALID_DIFF' })
  }
  // a hostile array given to applyDiff / toJsonPatch
  t.throws(() => applyDiff([null] as unknown as Block[], { op: 'complete', index: 0 }), { code: 'ERR_INVALID_DIFF' })
  t.throws(() => toJsonPatch({ op: 'append', index: 0, path: 'content', text: 'x' }, [{ type: 'text', content: 5 }]), { code: 'ERR_INVALID_DIFF' })
  t.throws(() => toJsonPatch({ op: 'append', index: 0, path: 'params.a', text: 'x' }, [{ type: 'tool_use', params: null }]), { code: 'ERR_INVALID_DIFF' })
})

t.test('issue 12: tool blocks need string params, a call_id and the right field types', async (t) => {
  const tool = three[2] as ToolUseBlock
  const wrong: unknown[] = [
    { ...tool, params: { path: 5 } }, { ...tool, params: { path: { a: 1 } } }, { ...tool, params: null }, { ...tool, params: ['a'] },
    { ...tool, params: new Map() }, { ...tool, call_id: undefined }, { ...tool, call_id: 7 }, { ...tool, name: null },
    { ...tool, partial: 'no' }, { ...tool, isNativeToolCall: 'false' }, { ...tool, truncated: 'yes' },
    { type: 'reasoning', reasoning: null, partial: false }, Object.create({ type: 'text', content: 'x', partial: false }),
  ]
  for (const block of wrong) {
    const run = await present([{ op: 'add', index: 0, block: { type: 'text', content: 'before', partial: false } }, { op: 'add', index: 1, block: { ...tool, partial: false } }, { op: 'add', index: 2, block }])
    t.match(run.error, { code: 'ERR_INVALID_DIFF' }, `refused ${JSON.stringify(block)}`)
    t.same(run.results.map((r) => r.status), ['ok'], 'the result so far is kept')
    t.equal(run.executed.length, 1, 'the bad block never reached the executor')
    t.throws(() => applyDiff([], bad({ op: 'add', index: 0, block })), { code: 'ERR_INVALID_DIFF' })
  }
  const fine = [{ ...tool, truncated: true }, { ...tool, isNativeToolCall: true }, { ...tool, params: Object.assign(Object.create(null) as object, { path: 'p' }) }]
  for (const block of fine) t.doesNotThrow(() => applyDiff([], bad({ op: 'add', index: 0, block })))
  // a snapshot record (a Block[] instead of diffs) is checked too
  const snap = await present([[{ type: 'text', content: 'x', partial: false }, { ...tool, params: { path: 1 } }]])
  t.match(snap.error, { code: 'ERR_INVALID_DIFF', message: /block 1 of the snapshot: param 'path' must be a string/ })
  // markers stay accepted where the Presenter takes them
  const marked = await present([{ op: 'message', id: 'm1' }, { op: 'diagnostic', code: 'unknown-tool', message: 'm', offset: 0 },
    { op: 'add', index: 0, block: { ...tool, partial: false } }, { op: 'end', id: 'm1' }])
  t.equal(marked.error, null)
  t.equal(marked.executed.length, 1)
  t.throws(() => applyDiff([], bad({ op: 'message', id: 'm' })), { code: 'ERR_INVALID_DIFF' }, 'markers are not diffs for applyDiff')
})

t.test('property: hostile diffs get ERR_INVALID_DIFF or apply alike in applyDiff, toJsonPatch and BlockAccumulator', async (t) => {
  let applied = 0
  let records = 0
  fc.assert(fc.property(hostileRun, (run) => {
    records += run.length
    applied += checkSync(lib, jsonpatch, run)
  }), { numRuns: 1500 })
  t.ok(applied > records / 10, `a good share of the records applied (${applied} of ${records}), so the laws on valid diffs were exercised`)
  t.ok(applied < records, 'and many were refused')
  expectClean(t)
})

t.test('property: hostile records only ever fail the Presenter with ERR_INVALID_DIFF', async (t) => {
  let failed = 0
  let executed = 0
  await fc.assert(fc.asyncProperty(hostileRun, async (run) => {
    const r = await checkPresenter(lib, run)
    if (r.failure !== null) failed++
  }), { numRuns: 150 })
  await fc.assert(fc.asyncProperty(taintedRun, async (run) => {
    const r = await checkPresenter(lib, taintedRecords(lib, run), false)
    executed += r.executed.length
  }), { numRuns: 250 })
  t.ok(failed > 0, `streams failed (${failed} of 150)`)
  t.ok(executed > 0, `tools ran before or after the hostile record (${executed})`)
  expectClean(t)
})
