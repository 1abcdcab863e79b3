// Hostile diff streams (issue 11 items 5–6) for the suite and `npm run fuzz`: plain JS so that both
// the TypeScript tests (on lib/) and the fuzz script (on dist/) run the same laws.
//
// A run starts from a few valid blocks and then mixes plausible diffs (most fields drawn from the
// values a real stream uses, so many apply) with hostile ones: indices such as '__proto__',
// 'constructor', -1, 1.5, 2^32; paths such as 'params.__proto__'; text and values of every JSON
// type; blocks with a field of the wrong type; records that are not objects at all.
import fc from 'fast-check'
import { soup, chunksOf } from './soup.mjs'

const hostileScalar = fc.constantFrom(
  '__proto__', 'constructor', 'prototype', 'length', 'toString', -1, -5e6, -1e9, 1.5, NaN, Infinity, -Infinity,
  2 ** 32, 2 ** 32 - 1, 2 ** 53, 1e300, '0', '1', '', null, undefined, true, false,
)
const anyJson = fc.oneof(fc.jsonValue({ maxDepth: 2 }), hostileScalar, fc.constant({}), fc.constant([]))
const mixed = (good) => fc.oneof({ weight: 6, arbitrary: good }, { weight: 1, arbitrary: anyJson })

const PARAM_NAMES = ['path', 'content', 'constructor', 'toString', 'hasOwnProperty', 'a/b~c', '']
const paramsArb = fc.dictionary(fc.constantFrom(...PARAM_NAMES), fc.string({ maxLength: 4 }), { maxKeys: 3 })

/** A well-formed block. */
export const validBlock = fc.oneof(
  fc.record({ type: fc.constant('text'), content: fc.string({ maxLength: 6 }), partial: fc.boolean() }),
  fc.record({ type: fc.constant('reasoning'), reasoning: fc.string({ maxLength: 6 }), partial: fc.boolean() }),
  fc.record({
    type: fc.constant('tool_use'), name: fc.constantFrom('read_file', 'x'), params: paramsArb, partial: fc.boolean(),
    call_id: fc.constantFrom('c1', 'c2'), isNativeToolCall: fc.boolean(), truncated: fc.constant(true),
  }, { requiredKeys: ['type', 'name', 'params', 'partial', 'call_id', 'isNativeToolCall'] }),
)

const FIELDS = ['type', 'content', 'reasoning', 'partial', 'name', 'params', 'call_id', 'isNativeToolCall', 'truncated']
/** A block with one field replaced (or removed), params with a bad value or an own `__proto__`, or not a block at all. */
const badBlock = fc.oneof(
  fc.tuple(validBlock, fc.constantFrom(...FIELDS), anyJson).map(([b, k, v]) => {
    const c = { ...b }
    if (v === undefined) delete c[k]
    else c[k] = v
    return c
  }),
  validBlock.map((b) => (b.type === 'tool_use' ? { ...b, params: JSON.parse('{"__proto__":"x","path":"p"}') } : b)),
  validBlock.map((b) => (b.type === 'tool_use' ? { ...b, params: { path: 5 } } : b)),
  validBlock.map((b) => (b.type === 'tool_use' ? { ...b, params: ['a'] } : b)),
  anyJson,
)
const blockArb = fc.oneof({ weight: 3, arbitrary: validBlock }, { weight: 2, arbitrary: badBlock })

const OPS = ['add', 'append', 'set', 'complete', 'truncate', 'replace']
const PATHS = ['content', 'reasoning', 'params.path', 'params.content', 'params.constructor', 'params.toString',
  'params.__proto__', 'params.', 'params.a/b~c', '__proto__', 'partial', 'type', 'params', '']

/** One record: mostly diffs whose fields are drawn from plausible values, with hostile ones mixed in. */
export const hostileRecord = fc.oneof(
  { weight: 12, arbitrary: fc.record({
    op: fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...OPS) }, { weight: 1, arbitrary: fc.constantFrom('nope', '__proto__', 'constructor', 'diagnostic', 'message', 'end') }),
    index: mixed(fc.nat(4)),
    path: mixed(fc.constantFrom(...PATHS)),
    text: mixed(fc.string({ maxLength: 3 })),
    value: mixed(fc.string({ maxLength: 3 })),
    length: mixed(fc.nat(4)),
    block: blockArb,
  }, { requiredKeys: ['op'] }) },
  // a diff parsed from JSON with an own `__proto__` key, as one from a log or a socket would be
  { weight: 1, arbitrary: fc.constantFrom(
    '{"op":"complete","index":"__proto__"}', '{"op":"complete","index":"constructor"}',
    '{"op":"set","index":2,"path":"params.__proto__","value":"x"}', '{"op":"append","index":2,"path":"params.constructor","text":"x"}',
    '{"op":"add","index":3,"block":{"type":"tool_use","name":"x","params":{"__proto__":{"a":1}},"partial":false,"call_id":"c","isNativeToolCall":false}}',
    '{"op":"truncate","length":-5000000}', '{"__proto__":{"op":"complete","index":0}}',
  ).map((s) => JSON.parse(s)) },
  { weight: 1, arbitrary: anyJson },
)

/** Where every run starts: one block of each type. */
export function startBlocks() {
  return [
    { type: 'text', content: 'Hi', partial: true },
    { type: 'reasoning', reasoning: 'r', partial: true },
    { type: 'tool_use', name: 'read_file', params: { path: 'a' }, partial: true, call_id: 'c0', isNativeToolCall: false },
  ]
}

/** A run: some hostile records. */
export const hostileRun = fc.array(hostileRecord, { minLength: 1, maxLength: 12 })

/** A message's valid diff stream, chunked, with one hostile record slipped in somewhere. */
export const taintedRun = fc.record({ text: soup, cuts: fc.array(fc.nat(), { maxLength: 8 }), at: fc.nat(), bad: hostileRecord })

/** The records of a {@link taintedRun}: the diffs between the parses of successive prefixes, and the hostile one. */
export function taintedRecords(lib, { text, cuts, at, bad }) {
  const ids = () => { let n = 0; return () => 'c' + (++n) }
  const out = []
  let prev = []
  let prefix = ''
  for (const c of chunksOf(text, cuts)) {
    prefix += c
    const next = lib.parseAssistantMessage(prefix, { idGenerator: ids() })
    out.push(...lib.diffBlocks(prev, next))
    prev = next
  }
  out.splice(at % (out.length + 1), 0, bad)
  return out
}

const BUILTINS = [Object, Object.prototype, Array, Array.prototype, Function.prototype, String.prototype]

/** What a prototype pollution would change: the own keys and prototypes of the built-ins. */
export function builtinsFingerprint() {
  return JSON.stringify(BUILTINS.map((o) => [Reflect.ownKeys(o).map(String).sort(), Object.getPrototypeOf(o) === null ? 'null' : typeof Object.getPrototypeOf(o)]))
    + [[].partial, Array.partial, ({}).partial, ({}).x].join()
}

/** Throws unless `err` is the TagstreamError ERR_INVALID_DIFF. */
export function expectInvalidDiff(err, where, record) {
  if (err === null || typeof err !== 'object' || err.code !== 'ERR_INVALID_DIFF' || err.name !== 'TagstreamError') {
    throw new Error(`${where}: ${JSON.stringify(record)} threw ${err && err.stack ? err.stack : String(err)}`)
  }
}

/** Throws unless `blocks` is an array of well-formed blocks with ordinary prototypes and string params. */
export function expectWellFormed(blocks, where) {
  if (!Array.isArray(blocks) || Object.getPrototypeOf(blocks) !== Array.prototype) throw new Error(`${where}: not a plain array`)
  for (const b of blocks) {
    if (Object.getPrototypeOf(b) !== Object.prototype && Object.getPrototypeOf(b) !== null) throw new Error(`${where}: a block with another prototype`)
    if (typeof b.partial !== 'boolean') throw new Error(`${where}: partial ${String(b.partial)}`)
    if (b.type === 'text' ? typeof b.content !== 'string' : b.type === 'reasoning' ? typeof b.reasoning !== 'string' : b.type !== 'tool_use') {
      throw new Error(`${where}: a malformed block ${JSON.stringify(b)}`)
    }
    if (b.type === 'tool_use') {
      const proto = Object.getPrototypeOf(b.params)
      if (typeof b.name !== 'string' || typeof b.call_id !== 'string' || (proto !== Object.prototype && proto !== null)) throw new Error(`${where}: a malformed tool block`)
      for (const k of Object.keys(b.params)) if (typeof b.params[k] !== 'string' || k === '__proto__') throw new Error(`${where}: param ${k} is ${typeof b.params[k]}`)
    }
  }
}

/**
 * The synchronous laws over one run, for `lib` (lib/ or dist/) and an RFC 6902 implementation:
 * applyDiff, toJsonPatch and BlockAccumulator throw nothing but ERR_INVALID_DIFF, agree on which
 * records are invalid, and agree on the blocks (the patch applied by `jsonpatch`); a rejected
 * record changes nothing; no built-in changes. Returns how many records applied.
 */
export function checkSync(lib, jsonpatch, records) {
  const before = builtinsFingerprint()
  let blocks = startBlocks()
  const acc = new lib.BlockAccumulator(blocks)
  let applied = 0
  for (const r of records) {
    let next
    let ok = true
    try {
      next = lib.applyDiff(blocks, r)
    } catch (err) {
      expectInvalidDiff(err, 'applyDiff', r)
      ok = false
    }
    let ops
    try {
      ops = lib.toJsonPatch(r, blocks)
      if (!ok) throw new Error(`toJsonPatch accepted ${JSON.stringify(r)}, which applyDiff rejects`)
    } catch (err) {
      if (ok) throw err
      expectInvalidDiff(err, 'toJsonPatch', r)
    }
    try {
      lib.toJsonPatch(r) // without the array: fewer checks, the same kind of error
    } catch (err) {
      expectInvalidDiff(err, 'toJsonPatch without blocks', r)
    }
    try {
      acc.apply(r)
      if (!ok) throw new Error(`BlockAccumulator accepted ${JSON.stringify(r)}, which applyDiff rejects`)
    } catch (err) {
      if (ok) throw err
      expectInvalidDiff(err, 'BlockAccumulator', r)
    }
    if (ok) {
      applied++
      expectWellFormed(next, 'applyDiff')
      const patched = jsonpatch.applyPatch(structuredClone(blocks), ops, true, false).newDocument
      if (JSON.stringify(patched) !== JSON.stringify(next)) throw new Error(`toJsonPatch: ${JSON.stringify(patched)} vs ${JSON.stringify(next)}`)
      blocks = next
    }
    if (JSON.stringify(acc.blocks) !== JSON.stringify(blocks)) throw new Error(`BlockAccumulator: ${JSON.stringify(acc.blocks)} vs ${JSON.stringify(blocks)}`)
    if (acc.json() !== JSON.stringify(blocks)) throw new Error(`BlockAccumulator.json(): ${acc.json()} vs ${JSON.stringify(blocks)}`)
  }
  expectWellFormed(acc.snapshot(), 'BlockAccumulator')
  if (builtinsFingerprint() !== before) throw new Error(`a built-in changed after ${JSON.stringify(records)}`)
  return applied
}

/**
 * The Presenter's law over one run: records written one by one (after the start blocks, unless
 * `start` is false) either
 * apply or fail the stream with ERR_INVALID_DIFF; every executed tool had string params; results
 * so far stay readable; no built-in changes. Resolves to the stream's error (or null) and the
 * call_ids of the tools executed.
 */
export async function checkPresenter(lib, records, start = true) {
  const before = builtinsFingerprint()
  const executed = []
  const p = lib.createPresenter({
    say: () => {},
    onToolPartial: () => {},
    parallelToolCalls: true,
    executeTool: (block) => {
      expectWellFormed([block], 'executeTool')
      executed.push(block.call_id)
      return 'ok'
    },
  })
  let failure = null
  p.on('error', (err) => { failure = err })
  const write = (r) => new Promise((resolve) => p.write(r, () => resolve()))
  if (start) for (const [i, b] of startBlocks().entries()) await write({ op: 'add', index: i, block: b })
  for (const r of records) {
    if (p.destroyed) break
    if (r === null || r === undefined) continue // Writable itself refuses these, before the Presenter sees them
    await write(r)
  }
  if (!p.destroyed) {
    p.end()
    await new Promise((resolve) => { p.on('finish', resolve); p.on('close', resolve) })
  }
  await new Promise((resolve) => setImmediate(resolve))
  if (failure !== null) expectInvalidDiff(failure, 'Presenter', records)
  const ok = p.results.filter((r) => r.status === 'ok').length
  if (ok !== executed.length) throw new Error(`Presenter: ${ok} ok results for ${executed.length} executed tools`)
  if (builtinsFingerprint() !== before) throw new Error(`a built-in changed after ${JSON.stringify(records)}`)
  return { failure, executed }
}
