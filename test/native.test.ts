// Native tool calls (SPEC 8a): the incremental argument assembler and the turn's native blocks.
import t from 'tap'
import fc from 'fast-check'
import { ArgumentAssembler, collectOps, type ArgumentOp } from '../lib/native/args.js'
import { NativeCalls, convertArguments } from '../lib/native/calls.js'
import { applyDiff, type Block, type BlockDiff, type Diagnostic } from '../lib/index.js'
import { chunksOf, cutsUpTo, fixedChunks } from './helpers/arb.js'

/** Feeds pieces; returns the ops, the params as the ops build them, and the end's verdict. */
function run(pieces: readonly string[], emptyIsObject = true) {
  const a = new ArgumentAssembler()
  const ops: ArgumentOp[] = []
  const built: Record<string, string> = {}
  const history = new Map<string, string[]>()
  for (const p of pieces) {
    const mine: ArgumentOp[] = []
    a.push(p, collectOps(mine))
    for (const op of mine) {
      if (op.op === 'set') Object.defineProperty(built, op.name, { value: op.value, writable: true, enumerable: true, configurable: true })
      else {
        if (!Object.hasOwn(built, op.name)) throw new Error(`append to unknown param ${op.name}`)
        built[op.name] += op.text
      }
      let h = history.get(op.name)
      if (h === undefined) history.set(op.name, (h = []))
      h.push(built[op.name]!)
    }
    ops.push(...mine)
  }
  const problem = a.end(emptyIsObject)
  return { ops, built, history, problem, params: a.params(), a }
}

const same = (x: unknown, y: unknown): boolean => JSON.stringify(x) === JSON.stringify(y)

/** A JSON encoding of a string that escapes characters at random (`\uXXXX`, short escapes, or raw). */
const encodedString = (s: string) => fc.array(fc.nat(3), { minLength: s.length, maxLength: s.length }).map((how) => {
  let out = '"'
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    const must = c < 0x20 || c === 0x22 || c === 0x5c
    const h = how[i]!
    if (h === 1 || (must && h !== 2)) out += '\\u' + c.toString(16).padStart(4, '0')
    else if (h === 2 && (c === 0x22 || c === 0x5c || c === 0x2f || c === 0x0a || c === 0x09)) out += '\\' + ({ 0x22: '"', 0x5c: '\\', 0x2f: '/', 0x0a: 'n', 0x09: 't' } as Record<number, string>)[c]
    else if (must) out += '\\u' + c.toString(16).padStart(4, '0')
    else out += s[i]
  }
  return out + '"'
})

const anyString = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), fc.constantFrom('\\', '"', '\ud83d\ude80', 'a\\nb', '\u2028'))
const ws = fc.constantFrom('', ' ', '\n  ', '\t', '\r\n')
const keyArb = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('path', 'content', 'constructor', 'toString', '0', '12', '__proto__', 'a.b'))

/** A random argument object written as JSON with random white space and escapes, plus the object. */
const argsJson = fc.array(fc.tuple(keyArb, fc.oneof(anyString.map((s) => ({ s })), fc.jsonValue({ maxDepth: 3 }).map((v) => ({ v })))), { maxLength: 6 })
  .chain((entries) => fc.tuple(
    fc.tuple(...entries.map(([k, v]) => fc.tuple(encodedString(k), 'v' in v ? fc.constant(JSON.stringify(v.v, null, v.v !== null && typeof v.v === 'object' ? 1 : undefined)) : encodedString(v.s), ws, ws, ws))),
    ws, ws,
  ).map(([parts, lead, tail]) => lead + '{' + parts.map(([k, v, a, b, c]) => `${a}${k}${b}:${c}${v}`).join(',') + ' }' + tail))

t.test('any split of the argument JSON gives the params of JSON.parse of the whole, strings growing by appends', async (t) => {
  fc.assert(fc.property(argsJson, cutsUpTo(400), (json, cuts) => {
    const expected = convertArguments(JSON.parse(json) as Record<string, unknown>)
    const r = run(chunksOf(json, cuts))
    if (r.problem !== undefined) throw new Error(`unexpected problem ${r.problem.message} in ${json}`)
    if (!same(r.params, expected)) throw new Error(`params ${JSON.stringify(r.params)} != ${JSON.stringify(expected)} for ${json}`)
    if (!same(r.built, expected)) throw new Error(`ops build ${JSON.stringify(r.built)} != ${JSON.stringify(expected)}`)
    // a key given once: every value it took is a prefix of the final one
    for (const [name, values] of r.history) {
      if (r.ops.filter((o) => o.op === 'set' && o.name === name).length !== 1) continue
      for (const v of values) if (!expected[name]!.startsWith(v)) throw new Error(`${JSON.stringify(v)} is not a prefix of ${JSON.stringify(expected[name])}`)
    }
  }), { numRuns: 1500 })
  t.pass('held')
})

t.test('escapes and surrogate pairs cut anywhere decode correctly; no append ends in half a pair', async (t) => {
  const text = 'a\\b"c\n\ud83d\ude80 é\u2028/\u0000z'
  const json = `{"content":${'"' + [...text].map((ch) => ch === '\\' ? '\\\\' : ch === '"' ? '\\"' : ch === '\n' ? '\\n' : ch === '\u0000' ? '\\u0000' : ch === '/' ? '\\/' : ch === '\ud83d\ude80' ? '\\uD83D\\uDE80' : ch).join('') + '"'}}`
  t.equal(JSON.parse(json).content, text)
  for (let size = 1; size <= json.length; size++) {
    const r = run(fixedChunks(json, size))
    t.same(r.params, { content: text }, `pieces of ${size}`)
    for (const op of r.ops) {
      const s = op.op === 'set' ? op.value : op.text
      const last = s.charCodeAt(s.length - 1)
      if (last >= 0xd800 && last <= 0xdbff) t.fail(`an op ends in a high surrogate with pieces of ${size}`)
    }
  }
  // every pair of cut points
  for (let i = 0; i <= json.length; i++) {
    for (let j = i; j <= json.length; j++) {
      const r = run([json.slice(0, i), json.slice(i, j), json.slice(j)])
      if (r.params.content !== text) t.fail(`cut at ${i}, ${j}: ${JSON.stringify(r.params)}`)
    }
  }
  // a raw pair split between two pieces (a provider cutting a string mid-pair)
  const r = run(['{"c":"x\ud83d', '\ude80y"}'])
  t.same(r.ops, [{ op: 'set', name: 'c', value: 'x' }, { op: 'append', name: 'c', text: '\ud83d\ude80y' }])
  // a cut right after a high surrogate keeps it in the params so far
  const cut = run(['{"c":"x\\ud83d'])
  t.equal(cut.params.c, 'x\ud83d')
  t.ok(cut.problem)
})

t.test('validity agrees with JSON.parse: complete exactly when the text is a JSON object', async (t) => {
  const alphabet = fc.constantFrom(...'{}[]":,\\ u0123456789abcdeEfnrtl.-+ \n\t/'.split(''), '"k"', '"\\u00e9"', 'true', 'null', '1.5e3', '{"a":', '"x":"y"')
  const mutated = fc.tuple(argsJson, fc.nat(), fc.nat(), alphabet).map(([j, at, len, ins]) => {
    const p = at % (j.length + 1)
    return j.slice(0, p) + ins + j.slice(p + (len % 3))
  })
  fc.assert(fc.property(fc.oneof(fc.array(alphabet, { maxLength: 20 }).map((a) => a.join('')), mutated, argsJson), cutsUpTo(200), (text, cuts) => {
    let parsed: unknown
    let ok = false
    try {
      parsed = JSON.parse(text)
      ok = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
    } catch { /* invalid */ }
    if (text.trim() === '') ok = true // no argument text: a call without arguments
    const r = run(chunksOf(text, cuts))
    if (ok !== (r.problem === undefined)) throw new Error(`${JSON.stringify(text)}: JSON.parse says ${ok}, the assembler ${r.problem?.message ?? 'complete'}`)
    if (ok && text.trim() !== '' && !same(r.params, convertArguments(parsed as Record<string, unknown>))) throw new Error(`params differ for ${text}`)
  }), { numRuns: 3000 })
  t.pass('held')
})

t.test('a cut argument text: a problem, the params read so far, each a prefix of the final string value', async (t) => {
  fc.assert(fc.property(argsJson, fc.nat(), (json, at) => {
    const end = json.trimEnd().length
    const cutAt = at % end // strictly before the closing brace
    const prefix = json.slice(0, cutAt)
    const r = run([prefix], false)
    if (r.problem === undefined) throw new Error(`no problem for the cut ${JSON.stringify(prefix)}`)
    const whole = run([json])
    const full = convertArguments(JSON.parse(json) as Record<string, unknown>)
    for (const [k, v] of Object.entries(r.params)) {
      if (whole.ops.filter((o) => o.name === k).length !== 1) continue // a repeated key starts over
      if (!full[k]!.startsWith(v)) throw new Error(`${k}: ${JSON.stringify(v)} is not a prefix of ${JSON.stringify(full[k])}`)
    }
  }), { numRuns: 1000 })
  t.pass('held')
})

t.test('verdicts and messages', async (t) => {
  t.equal(run([]).problem, undefined, 'no text, ended normally: no arguments')
  t.same(run([]).params, {})
  t.match(run([], false).problem, { message: /before any argument text/, offset: 0 })
  t.match(run(['  '], false).problem, { message: /before any argument text/ })
  t.match(run(['{"a":"b"']).problem, { message: /ended before their JSON object was complete/, offset: 8 })
  t.match(run(['["a"]']).problem, { message: /not a JSON object \(they start with "\["\)/, offset: 0 })
  t.match(run(['"x"']).problem, { message: /not a JSON object/ })
  t.match(run(['{"a":1} x']).problem, { message: /unexpected "x" after the arguments object/, offset: 8 })
  t.match(run(['{"a":tru}']).problem, { message: /value of "a" is not valid JSON/ })
  t.match(run(['{"a" "b"}']).problem, { message: /expected ':'/ })
  t.match(run(['{"a":"b" "c"}']).problem, { message: /expected ',' or '}'/ })
  t.match(run(['{"a":"b",}']).problem, { message: /expected a key string/ })
  t.match(run(['{a:1}']).problem, { message: /expected a key string, got "a"/ })
  t.match(run(['{"a":"\\x"}']).problem, { message: /bad escape \\x/ })
  t.match(run(['{"a":"\\u12g4"}']).problem, { message: /bad \\u escape/ })
  t.match(run(['{"a":"x\ny"}']).problem, { message: /raw control character U\+000A/ })
  const r = run(['{"a":"kept",', '"b":[1,', '2]', ' x'])
  t.same(r.params, { a: 'kept', b: '[1,2]' }, 'what was read before a problem stays')
  t.same(r.a.problem, r.problem)
  t.equal(r.a.complete, false)
  const ok = run(['{"n": 1.50, "e": 1e2, "neg": -0, "big": 1e400, "o": { "x" : [ true , null ] }, "s": "t"}'])
  t.same(ok.params, { n: '1.5', e: '100', neg: '0', big: 'null', o: '{"x":[true,null]}', s: 't' }, 'non-strings as JSON.stringify(JSON.parse(raw))')
  t.equal(ok.a.complete, true)
  t.equal(ok.a.length, '{"n": 1.50, "e": 1e2, "neg": -0, "big": 1e400, "o": { "x" : [ true , null ] }, "s": "t"}'.length)
})

t.test('repeated keys: the last value at the first place, as JSON.parse', async (t) => {
  const json = '{"a":"one","b":2,"a":"two","b":"x"}'
  const r = run(fixedChunks(json, 3))
  t.same(Object.entries(r.params), Object.entries(convertArguments(JSON.parse(json))))
  t.same(Object.keys(r.params), ['a', 'b'])
  t.same(r.built, r.params)
})

t.test('__proto__: never written through, dropped with a diagnostic; nested ones stay in the value', async (t) => {
  const json = '{"__proto__":{"polluted":"yes"},"path":"a.ts","__proto__":"s","nested":{"__proto__":1}}'
  const r = run(fixedChunks(json, 5))
  t.equal(r.problem, undefined)
  t.same(Object.keys(r.params), ['path', 'nested'])
  t.equal(Object.getPrototypeOf(r.params), Object.prototype)
  t.equal(({} as Record<string, unknown>).polluted, undefined)
  t.equal(r.params.nested, '{"__proto__":1}')
  t.same(r.a.ignored, [{ name: '__proto__', offset: 1 }, { name: '__proto__', offset: json.lastIndexOf('"__proto__":"s"') }])
  t.same(r.ops.map((o) => o.name).filter((n) => n === '__proto__'), [])
  t.same(r.params, convertArguments(JSON.parse(json)), 'as the original: the string assignment to __proto__ does nothing')
  // a dropped value is still checked
  t.match(run(['{"__proto__":tru}']).problem, { message: /not valid JSON/ })
  const s = run(['{"__proto__":"a\\', 'nb"}'])
  t.equal(s.problem, undefined)
  t.same(s.params, {})
  // keys that an assignment would resolve on the prototype are own data properties
  const c = run(['{"constructor":"x","toString":"y","hasOwnProperty":"z"}'])
  t.same(Object.keys(c.params), ['constructor', 'toString', 'hasOwnProperty'])
  t.equal(c.params.constructor, 'x')
})

t.test('a long string argument streams as one append per piece, the diffs as long as the text', async (t) => {
  const content = 'line of a long file\n'.repeat(50_000)
  const json = JSON.stringify({ path: 'big.txt', content })
  const pieces = fixedChunks(json, 16)
  const r = run(pieces)
  t.equal(r.params.content, content)
  const appends = r.ops.filter((o) => o.op === 'append' && o.name === 'content')
  t.ok(appends.length >= pieces.length - 3 && appends.length <= pieces.length, `one append per piece (${appends.length} for ${pieces.length})`)
  const total = r.ops.reduce((n, o) => n + (o.op === 'set' ? o.value.length : o.text.length), 0)
  t.equal(total, content.length + 'big.txt'.length, 'each character is sent once')
  t.same(r.ops.filter((o) => o.op === 'set').map((o) => o.name), ['path', 'content'])
})

t.test('deeply nested and huge values', async (t) => {
  const deep = '['.repeat(100_000) + ']'.repeat(100_000)
  const r = run([`{"a":${deep}}`])
  // JSON.stringify of 100 000 levels overflows the stack: an invalid value, not a crash
  if (r.problem === undefined) t.equal(r.params.a, deep)
  else t.match(r.problem, { message: /value of "a" is not valid JSON/ })
  const big = run(['{"k":"', 'x'.repeat(1 << 20), '"}'])
  t.equal(big.params.k!.length, 1 << 20)
})

/** Applies the diffs to a block array and returns it. */
function apply(blocks: Block[], diffs: readonly BlockDiff[]): Block[] {
  return diffs.reduce(applyDiff, blocks)
}

t.test('NativeCalls: blocks at the given index, diffs in the protocol, complete or truncated', async (t) => {
  const diags: Diagnostic[] = []
  const calls = new NativeCalls((d) => diags.push(d))
  const out: BlockDiff[] = []
  let blocks: Block[] = [{ type: 'text', content: 'Reading.', partial: false }]
  calls.start('0', { id: 'call_A', name: 'read_file' }, 1, out)
  calls.start('1', { id: 'call_B', name: 'write_to_file' }, 2, out)
  t.ok(calls.args('0', '{"path":"a', out))
  t.ok(calls.args('1', '{"path":"b.txt","content":"hel', out))
  t.ok(calls.args('0', '.ts"}', out))
  t.ok(calls.args('1', 'lo', out))
  t.notOk(calls.args('9', '{}', out), 'an unknown call')
  blocks = apply(blocks, out)
  t.same(blocks[1], { type: 'tool_use', name: 'read_file', params: { path: 'a.ts' }, partial: true, call_id: 'call_A', isNativeToolCall: true })
  t.same(blocks[2], { type: 'tool_use', name: 'write_to_file', params: { path: 'b.txt', content: 'hello' }, partial: true, call_id: 'call_B', isNativeToolCall: true })
  t.same(out.filter((d) => d.op === 'append').map((d) => d.op === 'append' && [d.index, d.path, d.text]), [[1, 'params.path', '.ts'], [2, 'params.content', 'lo']])
  out.length = 0
  calls.end('0', false, out)
  t.notOk(calls.args('0', ' ', out), 'an ended call')
  calls.endAll(true, out)
  blocks = apply(blocks, out)
  t.same(out.map((d) => d.op), ['complete', 'replace'])
  t.same(blocks[1], { type: 'tool_use', name: 'read_file', params: { path: 'a.ts' }, partial: false, call_id: 'call_A', isNativeToolCall: true })
  t.same(blocks[2], { type: 'tool_use', name: 'write_to_file', params: { path: 'b.txt', content: 'hello' }, partial: false, call_id: 'call_B', isNativeToolCall: true, truncated: true })
  t.equal(JSON.stringify(Object.keys(blocks[2]!)), JSON.stringify(['type', 'name', 'params', 'partial', 'call_id', 'isNativeToolCall', 'truncated']))
  t.same(diags, [{ code: 'invalid-tool-arguments', message: 'native tool call "write_to_file" (call_B): the arguments ended before their JSON object was complete; it is marked truncated and will not be run', offset: '{"path":"b.txt","content":"hello'.length }])
  t.ok(calls.ended('1'))
  t.equal(calls.size, 2)
  t.ok(calls.has('1'))
})

t.test('NativeCalls: no argument text; a late name; __proto__ reported', async (t) => {
  const diags: Diagnostic[] = []
  const calls = new NativeCalls((d) => diags.push(d))
  const out: BlockDiff[] = []
  calls.start('a', { id: 'toolu_1', name: 'list_files' }, 0, out)
  calls.end('a', false, out)
  calls.start('b', { id: 'toolu_2', name: 'read_file' }, 1, out)
  calls.end('b', true, out)
  calls.start('c', { id: 'call_3', name: '' }, 2, out)
  calls.args('c', '{"__proto__":"x","p":"1"', out)
  calls.name('c', 'search_files', out)
  calls.name('c', 'other', out)
  calls.args('c', '}', out)
  calls.end('c', true, out)
  const blocks = apply([], out)
  t.same(blocks[0], { type: 'tool_use', name: 'list_files', params: {}, partial: false, call_id: 'toolu_1', isNativeToolCall: true })
  t.same(blocks[1], { type: 'tool_use', name: 'read_file', params: {}, partial: false, call_id: 'toolu_2', isNativeToolCall: true, truncated: true })
  t.same(blocks[2], { type: 'tool_use', name: 'search_files', params: { p: '1' }, partial: false, call_id: 'call_3', isNativeToolCall: true })
  t.same(diags.map((d) => d.code), ['invalid-tool-arguments', 'ignored-content'])
  t.match(diags[0]!.message, /before any argument text/)
  t.match(diags[1], { message: /the argument "__proto__" was dropped/, offset: 1 })
})

t.test('convertArguments: the original conversion', async (t) => {
  const input = JSON.parse('{"s":"x","n":1,"o":{"a":[1]},"b":false,"z":null,"__proto__":"p"}') as Record<string, unknown>
  t.same(convertArguments(input), { s: 'x', n: '1', o: '{"a":[1]}', b: 'false', z: 'null' })
})
