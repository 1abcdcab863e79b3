// Issue 15: native tool calls. A write_to_file whose `content` is a file of 2.5 MB and of
// 10 MB (code-like text: quotes, backslashes, tabs, newlines, so the JSON has escapes), its
// argument JSON streamed as 16-byte `input_json_delta` pieces. Measured in one run:
//  - native: replay events (one `tool` event per piece) through a ReplayDiffer inside an
//    object-mode Transform, `Readable.from(events) -> Transform -> no-op Writable`: the pieces
//    become `set` / `append` diffs on params.content; MB/s of argument JSON;
//  - the same file in the tag protocol (`<write_to_file><path>…</path><content>…</content>`),
//    cut into 16-byte chunks, through the BlockParser in the same pipeline shape: MB/s of text;
//  - native end to end from the SSE bytes of an Anthropic capture (readAnthropicSse ->
//    replayDiffs), 10 MB only: MB/s of argument JSON (the capture is ~8x larger);
//  - linearity: time at 4n (10 MB) over time at n (2.5 MB); target <= 6 (the original re-parses
//    the whole argument text on every delta: quadratic);
//  - the diffs' size: the text of the appends adds up to the file's length, once;
//  - a Cline history holding the file as a tool_use part (its input written back as JSON from
//    the tokens and streamed) against the same file as a text part in the tag protocol, 2.5 and
//    10 MB, read in 64 KiB pieces: MB/s of history and the 4x ratio;
//  - for scale, the original's way at 32 KB and 64 KB: after every delta, JSON.parse of the
//    whole argument text so far, and on failure a regex over it for the string fields so far
//    (quadratic: twice the size, about four times the time).
//
// Run: npm run build && node --expose-gc bench/native.bench.mjs
import { loadavg } from 'node:os'
import { Readable, Transform, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createBlockParser, ReplayDiffer, readAnthropicSse, readClineHistory, replayDiffs } from '../dist/index.js'
import { MB, chunk, fmtSize, measureInterleavedAsync, mdTable, num, prng, verdict } from './gen.mjs'

const CHUNK = 16
const LINEARITY_TARGET = 6

/** About `size` characters of code-like text (ASCII), with characters JSON must escape. */
function codeFile(size, seed = 7) {
  const { pick } = prng(seed)
  const lines = [
    'export function render(items: Item[]): string {',
    '  const out = items.map((i) => `"${i.name}"\\t${i.count}`)',
    "  return out.join('\\n') // tabs\tand \"quotes\"",
    '  if (path.startsWith("C:\\\\")) return path.replace(/\\\\/g, "/")',
    '}',
    '',
    '/** A comment with <angle> brackets & ampersands. */',
  ]
  const parts = []
  let n = 0
  while (n < size) {
    const l = pick(lines) + '\n'
    parts.push(l)
    n += l.length
  }
  return parts.join('').slice(0, size)
}

function sink() {
  return new Writable({ objectMode: true, write(_d, _e, cb) { cb() } })
}

/** The replay events of one turn with one native call whose arguments arrive in `pieces`. */
function nativeEvents(pieces) {
  const events = [{ type: 'message', id: 'turn-1' }, { type: 'tool', key: '0', id: 'toolu_bench', name: 'write_to_file', args: '', t: 0 }]
  for (const p of pieces) events.push({ type: 'tool', key: '0', args: p, t: 0 })
  events.push({ type: 'tool_end', key: '0' }, { type: 'end', id: 'turn-1' })
  return events
}

async function runNative(events, stats) {
  const differ = new ReplayDiffer()
  let appended = 0
  let last
  await pipeline(Readable.from(events), new Transform({
    objectMode: true,
    transform(e, _enc, cb) {
      for (const r of differ.push(e)) {
        if (r.op === 'append') appended += r.text.length
        else if (r.op === 'set') appended += r.value.length
        if (r.op !== 'end') last = r
        this.push(r)
      }
      cb()
    },
  }), sink())
  if (stats) Object.assign(stats, { appended, last })
}

async function runTags(chunks) {
  await pipeline(Readable.from(chunks), createBlockParser(), sink())
}

function anthropicSse(pieces) {
  const ev = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`
  const out = [ev('message_start', { message: { id: 'msg_bench', model: 'bench' } }),
    ev('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'toolu_bench', name: 'write_to_file', input: {} } })]
  for (const p of pieces) out.push(ev('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: p } }))
  out.push(ev('content_block_stop', { index: 0 }), ev('message_stop', {}))
  return out.join('')
}

async function runSse(sse) {
  // the capture arrives in 64 KiB reads, as from a file
  const reads = chunk(sse, 64 * 1024)
  for await (const r of replayDiffs(readAnthropicSse(reads))) void r
}

console.log(`## Native tool calls (issue 15)\n\nA write_to_file whose content is a code-like file, its argument JSON as ${CHUNK}-byte input_json_delta pieces. Load average: ${loadavg().map((x) => x.toFixed(2)).join(' ')}\n`)

const sizes = [2.5 * MB, 10 * MB]
const cases = sizes.map((size) => {
  const content = codeFile(size)
  const args = JSON.stringify({ path: 'src/big.ts', content })
  const text = `I'll write the file.\n\n<write_to_file>\n<path>src/big.ts</path>\n<content>\n${content}\n</content>\n</write_to_file>`
  return { size, content, args, events: nativeEvents(chunk(args, CHUNK)), tagChunks: chunk(text, CHUNK), textBytes: text.length }
})

// correctness first: the content arrives whole, each character once
for (const c of cases) {
  const s = {}
  await runNative(c.events, s)
  if (s.appended !== c.content.length + 'src/big.ts'.length) throw new Error(`diff text ${s.appended} != ${c.content.length + 10}`)
  if (s.last?.op !== 'complete') throw new Error(`the call did not complete: ${JSON.stringify(s.last)}`)
}

const fns = []
for (const c of cases) fns.push(() => runNative(c.events), () => runTags(c.tagChunks))
const res = await measureInterleavedAsync(fns, { warmup: 1, warmupMs: 0, samples: 5, minMs: 0 })

const rows = []
cases.forEach((c, i) => {
  const nat = res[2 * i]
  const tag = res[2 * i + 1]
  rows.push([fmtSize(c.size), `${num(c.args.length / MB / (nat.ms / 1000))} MB/s (${num(nat.ms)} ms)`, `${num(c.textBytes / MB / (tag.ms / 1000))} MB/s (${num(tag.ms)} ms)`, num(nat.ms / tag.ms)])
})
console.log(mdTable(['file', `native: ${CHUNK}-byte input_json_delta, ReplayDiffer`, `tags: ${CHUNK}-byte chunks, BlockParser`, 'native time / tag time'], rows))

const natRatio = res[2].ms / res[0].ms
const tagRatio = res[3].ms / res[1].ms
console.log(`\nLinearity, 4x the argument size (2.5 MB -> 10 MB): native ${num(natRatio)}x the time, tags ${num(tagRatio)}x. Target native <= ${LINEARITY_TARGET}x: ${verdict(natRatio <= LINEARITY_TARGET)}`)

const big = cases[1]
const sse = anthropicSse(chunk(big.args, CHUNK))
const [e2e] = await measureInterleavedAsync([() => runSse(sse)], { warmup: 1, warmupMs: 0, samples: 3, minMs: 0 })
console.log(`\nEnd to end from an Anthropic SSE capture (${fmtSize(sse.length)}, ${big.events.length - 4} input_json_delta events): ${num(big.args.length / MB / (e2e.ms / 1000))} MB/s of argument JSON, ${num(sse.length / MB / (e2e.ms / 1000))} MB/s of SSE (${num(e2e.ms)} ms).`)
console.log(`Diffs: the set/append text of params.content adds up to the file's ${fmtSize(big.content.length)}, each character once (checked).`)

/** The original's way: re-read the whole argument text after every delta. */
function reparsePerDelta(pieces) {
  const field = /"(\w+)":\s*"((?:[^"\\]|\\.)*)"?/g
  let acc = ''
  let params = {}
  for (const p of pieces) {
    acc += p
    try {
      params = JSON.parse(acc)
    } catch {
      params = {}
      for (const m of acc.matchAll(field)) params[m[1]] = m[2]
    }
  }
  return params
}

const small = [32 * 1024, 64 * 1024].map((size) => {
  const args = JSON.stringify({ path: 'src/big.ts', content: codeFile(size) })
  return { size, pieces: chunk(args, CHUNK), events: nativeEvents(chunk(args, CHUNK)) }
})
const naive = await measureInterleavedAsync(small.flatMap((c) => [async () => reparsePerDelta(c.pieces), () => runNative(c.events)]), { warmup: 3, warmupMs: 100, samples: 5, minMs: 100 })
console.log('\n' + mdTable(['argument', 're-parse per delta (the original)', 'incremental (ReplayDiffer)', 'ratio'], small.map((c, i) => [fmtSize(c.size), `${num(naive[2 * i].ms)} ms`, `${num(naive[2 * i + 1].ms)} ms`, `${num(naive[2 * i].ms / naive[2 * i + 1].ms)}x`])))
console.log(`Re-parse per delta, 2x the size: ${num(naive[2].ms / naive[0].ms)}x the time (quadratic); incremental: ${num(naive[3].ms / naive[1].ms)}x.`)

const historyCases = cases.map((c) => {
  const native = JSON.stringify([{ role: 'user', content: 'write it' }, { role: 'assistant', content: [{ type: 'text', text: "I'll write the file." }, { type: 'tool_use', id: 'toolu_h', name: 'write_to_file', input: { path: 'src/big.ts', content: c.content } }] }])
  const tags = JSON.stringify([{ role: 'user', content: 'write it' }, { role: 'assistant', content: [{ type: 'text', text: `I'll write the file.\n\n<write_to_file>\n<path>src/big.ts</path>\n<content>\n${c.content}\n</content>\n</write_to_file>` }] }])
  return { size: c.size, native: chunk(native, 64 * 1024), tags: chunk(tags, 64 * 1024), bytes: native.length }
})
async function runHistory(reads) {
  for await (const r of replayDiffs(readClineHistory(reads))) void r
}
const hist = await measureInterleavedAsync(historyCases.flatMap((c) => [() => runHistory(c.native), () => runHistory(c.tags)]), { warmup: 1, warmupMs: 0, samples: 3, minMs: 0 })
console.log('\n' + mdTable(['file in a Cline history', 'as a tool_use part (native)', 'as a text part (tags)', 'native / tags'], historyCases.map((c, i) => [fmtSize(c.size), `${num(c.bytes / MB / (hist[2 * i].ms / 1000))} MB/s (${num(hist[2 * i].ms)} ms)`, `${num(c.bytes / MB / (hist[2 * i + 1].ms / 1000))} MB/s (${num(hist[2 * i + 1].ms)} ms)`, num(hist[2 * i].ms / hist[2 * i + 1].ms)])))
console.log(`History, 4x the size: native ${num(hist[2].ms / hist[0].ms)}x the time, tags ${num(hist[3].ms / hist[1].ms)}x. Target native <= ${LINEARITY_TARGET}x: ${verdict(hist[2].ms / hist[0].ms <= LINEARITY_TARGET)}`)
