// Issue 6: log replay throughput and memory, and `stats` over worker threads.
//
//  - a 200 MB chunk log (JSONL, ~5.7 M chunks of 1-24 characters in ~40 KB assistant turns
//    with tool calls) is generated into a temp dir and replayed by the built CLI,
//    `tagstream replay FILE --speed 0`, its NDJSON read and counted by this process through a
//    pipe: wall time -> MB/s of log; peak RSS of the CLI process (target: < 150 MB). The same
//    at 50 MB shows the peak does not grow with the file;
//  - a 100 MB Cline history (one JSON array, read with stream-json): its peak RSS stays that of
//    one message, whatever the file's size (no target: V8 lets garbage reach ~100 MB first);
//  - the same replay in-process through the library alone (readLogBatches + ReplayDiffer, no
//    serialisation), to separate the parse from the output;
//  - `tagstream stats --json` over 48 files of 2 MB with --jobs 1 and --jobs 2: wall times and
//    the speed-up (bounded by the cores the machine has free).
//  - issue 11 (memory): Cline histories holding one assistant message of 10, 20 and 40 MB,
//    replayed by the CLI: peak RSS (target: the 20 MB message under 350 MB; the message is
//    replayed as it is read, so the peak follows the parse of the turn, not the JSON); a 200 MB
//    message, a 200 MB JSONL line and a 200 MB SSE event: each fails with maxBytes (64 MiB)
//    named, before being held whole: its peak RSS and time to the error;
//  - issue 12 (linear snapshots): one turn of 100k and 400k blocks replayed plain and with
//    --final: targets --final within 2x of plain replay at 100k blocks, and 4x the blocks costing
//    about 4x the time (<= 6x). --snapshots prints the whole array after every chunk (blocks x
//    chunks bytes, so 16x the output for 4x the blocks): timed at 1k and 4k blocks, where its
//    output rate (MB/s) must not fall with the blocks (the work besides the output is linear).
// Temp files are deleted at the end.
//
// Run: npm run build && node --expose-gc bench/replay.bench.mjs [--size MB] [--only throughput,memory,final,stats]
import { spawn } from 'node:child_process'
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL, fileURLToPath } from 'node:url'
import { readLogBatches, ReplayDiffer } from '../dist/index.js'

const CLI = fileURLToPath(new URL('../dist/examples/cli/main.js', import.meta.url))
const sizeArg = process.argv.indexOf('--size')
const BIG_MB = sizeArg > 0 ? Number(process.argv[sizeArg + 1]) : 200
const RSS_TARGET_MB = 150
const onlyArg = process.argv.indexOf('--only')
const only = new Set(onlyArg > 0 ? process.argv[onlyArg + 1].split(',') : ['throughput', 'memory', 'final', 'stats'])
const failures = []
const dir = mkdtempSync(join(tmpdir(), 'tagstream-replay-bench-'))
process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130))

// --- the log -------------------------------------------------------------------------------
const PARTS = [
  "I'll look at the file first to see how it is structured.\n\n<read_file>\n<path>src/components/App.tsx</path>\n</read_file>\n\n",
  "Now I'll write the updated version.\n\n<write_to_file>\n<path>src/util/format.ts</path>\n<content>\nexport function format(n: number): string {\n  return n.toFixed(2) // keep two decimals\n}\n\nexport const answer = 42 < 43 && 'yes'\n</content>\n</write_to_file>\n\n",
  'Let me run the tests.\n\n<execute_command>\n<command>npm test -- --grep "format"</command>\n<requires_approval>false</requires_approval>\n</execute_command>\n\n',
  'Some prose that explains what is going on with the change, why it matters, and what comes next. ',
]

/** Writes a chunk log of about `mb` MB: turns of ~40 KB cut into chunks of 1-24 characters. */
async function writeLog(file, mb, seed = 1) {
  const out = createWriteStream(file)
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff
  let size = 0
  let turn = 0
  while (size < mb * 1e6) {
    let text = ''
    while (text.length < 40_000) text += PARTS[Math.floor(rnd() * PARTS.length)]
    text += '<attempt_completion>\n<result>\nDone.\n</result>\n</attempt_completion>'
    let buf = JSON.stringify({ meta: { turn: ++turn } }) + '\n'
    for (let i = 0, t = 300; i < text.length; t += Math.floor(rnd() * 40)) {
      const n = 1 + Math.floor(rnd() * 24)
      buf += JSON.stringify({ t, text: text.slice(i, i + n) }) + '\n'
      i += n
    }
    size += Buffer.byteLength(buf)
    if (!out.write(buf)) await new Promise((r) => out.once('drain', r))
  }
  await new Promise((r) => out.end(r))
  return statSync(file).size
}

/** Writes a Cline-style history of about `mb` MB: user/assistant pairs, ~40 KB assistant turns. */
async function writeHistory(file, mb) {
  const out = createWriteStream(file)
  let size = 1
  out.write('[')
  for (let i = 0; size < mb * 1e6; i++) {
    let text = ''
    while (text.length < 40_000) text += PARTS[(i + text.length) % PARTS.length]
    const pair = JSON.stringify({ role: 'user', content: [{ type: 'text', text: `[tool result ${i}] ` + 'ok '.repeat(4000) }] }) + ',' +
      JSON.stringify({ role: 'assistant', content: [{ type: 'text', text }] })
    const s = (i === 0 ? '' : ',') + pair
    size += Buffer.byteLength(s)
    if (!out.write(s)) await new Promise((r) => out.once('drain', r))
  }
  await new Promise((r) => out.end(']', r))
  return statSync(file).size
}

// --- measuring the CLI -------------------------------------------------------------------------
// A preload that prints the process's peak RSS when it exits: the figure is the CLI's own.
const rssHook = join(dir, 'rss.mjs')
writeFileSync(rssHook, "process.on('exit', () => process.stderr.write(`\\n@@maxrss ${process.resourceUsage().maxRSS}\\n`))\n")

/** Runs the CLI, counting its stdout; resolves with wall ms, output bytes and peak RSS (MB). */
function runCli(args, { fail = false } = {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn(process.execPath, ['--import', pathToFileURL(rssHook).href, CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let bytes = 0
    let err = ''
    child.stdout.on('data', (b) => (bytes += b.length))
    child.stderr.on('data', (b) => (err += b))
    child.on('error', reject)
    child.on('close', (code) => {
      const ms = performance.now() - t0
      const rss = /@@maxrss (\d+)/.exec(err)
      if ((code !== 0) !== fail) return reject(new Error(`tagstream ${args.join(' ')} exited ${code}: ${err.trim()}`))
      resolve({ ms, bytes, rssMB: rss ? Number(rss[1]) / 1024 : NaN, stderr: err.replace(/\n?@@maxrss \d+\n/u, '').trim() })
    })
  })
}

const fmt = (x, d = 1) => x.toFixed(d)
const rows = []
console.log(`## replay (issue 6)\n\nNode ${process.version}, ${availableParallelism()} cores, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}.\n`)

let bigRun, smallRun, bigBytes, smallBytes, one, two
if (only.has('throughput')) {
const big = join(dir, 'big.jsonl')
const small = join(dir, 'small.jsonl')
bigBytes = await writeLog(big, BIG_MB)
smallBytes = await writeLog(small, BIG_MB / 4)

bigRun = await runCli(['replay', big, '--speed', '0'])
smallRun = await runCli(['replay', small, '--speed', '0'])
rows.push([`CLI replay, ${fmt(bigBytes / 1e6, 0)} MB chunk log → NDJSON pipe`, `${fmt(bigBytes / 1e6 / (bigRun.ms / 1000))} MB/s`, `${fmt(bigRun.ms / 1000, 2)} s, ${fmt(bigRun.bytes / 1e6, 0)} MB out`, `${fmt(bigRun.rssMB, 0)} MB`])
rows.push([`CLI replay, ${fmt(smallBytes / 1e6, 0)} MB chunk log → NDJSON pipe`, `${fmt(smallBytes / 1e6 / (smallRun.ms / 1000))} MB/s`, `${fmt(smallRun.ms / 1000, 2)} s, ${fmt(smallRun.bytes / 1e6, 0)} MB out`, `${fmt(smallRun.rssMB, 0)} MB`])

const hist = join(dir, 'history.json')
const histBytes = await writeHistory(hist, BIG_MB / 2)
const histRun = await runCli(['replay', hist, '--speed', '0'])
rows.push([`CLI replay, ${fmt(histBytes / 1e6, 0)} MB Cline history (one JSON array) → NDJSON pipe`, `${fmt(histBytes / 1e6 / (histRun.ms / 1000))} MB/s`, `${fmt(histRun.ms / 1000, 2)} s, ${fmt(histRun.bytes / 1e6, 0)} MB out`, `${fmt(histRun.rssMB, 0)} MB`])
rmSync(hist)

// --- the library alone ---------------------------------------------------------------------
globalThis.gc?.()
{
  const t0 = performance.now()
  const differ = new ReplayDiffer()
  let records = 0
  for await (const batch of readLogBatches(createReadStream(big), { file: big })) {
    for (const e of batch) records += differ.push(e).length
  }
  const ms = performance.now() - t0
  rows.push([`library: readLogBatches + ReplayDiffer, ${fmt(bigBytes / 1e6, 0)} MB (no output)`, `${fmt(bigBytes / 1e6 / (ms / 1000))} MB/s`, `${fmt(ms / 1000, 2)} s, ${records} records`, '-'])
}
rmSync(big)
}

// --- issue 11: one big message, one big line or event ----------------------------------------
/** A history whose one assistant message is `mb` MB of text with tool calls. */
function writeBigMessage(file, mb) {
  const parts = []
  for (let n = 0, i = 0; n < mb * 1e6; i++) {
    const p = PARTS[i % PARTS.length]
    parts.push(p)
    n += p.length
  }
  writeFileSync(file, JSON.stringify([{ role: 'user', content: 'go' }, { role: 'assistant', content: [{ type: 'text', text: parts.join('') }] }]))
  return statSync(file).size
}

if (only.has('memory')) {
  const rss = {}
  for (const mb of [10, 20, 40]) {
    const f = join(dir, `msg${mb}.json`)
    const bytes = writeBigMessage(f, mb)
    const r = await runCli(['replay', f, '--speed', '0'])
    rss[mb] = r.rssMB
    rows.push([`CLI replay, a history with one ${mb} MB message`, `${fmt(bytes / 1e6 / (r.ms / 1000))} MB/s`, `${fmt(r.ms / 1000, 2)} s, ${fmt(r.bytes / 1e6, 0)} MB out`, `${fmt(r.rssMB, 0)} MB`])
    rmSync(f)
  }
  if (!(rss[20] < 350)) failures.push(`a 20 MB message needs ${fmt(rss[20], 0)} MB (target 350)`)
  const text = 'x'.repeat(1e6)
  const huge = [
    ['a 200 MB history message', 'huge.json', (f) => writeBigMessage(f, 200)],
    ['a 200 MB JSONL line', 'huge.jsonl', (f) => writeFileSync(f, `{"t":0,"text":"${text.repeat(200)}"}\n`)],
    ['a 200 MB SSE event', 'huge.sse', (f) => writeFileSync(f, `data: {"choices":[{"delta":{"content":"${text.repeat(200)}"}}]}\n\n`)],
  ]
  for (const [what, name, write] of huge) {
    const f = join(dir, name)
    write(f)
    const r = await runCli(['replay', f, '--speed', '0'], { fail: true })
    const named = /exceeds maxBytes \(67108864\)/u.test(r.stderr) && r.stderr.includes(f)
    if (!named) failures.push(`${what}: ${r.stderr}`)
    rows.push([`CLI replay, ${what} (fails at maxBytes)`, '-', `${fmt(r.ms / 1000, 2)} s to the error${named ? '' : ' (NOT NAMED)'}`, `${fmt(r.rssMB, 0)} MB`])
    rmSync(f)
  }
}

// --- issue 12: --final and --snapshots linear in the diffs ------------------------------------
/** A chunk log of one turn that parses to `blocks` blocks (text, tool, text, tool…), 16-char chunks. */
function writeManyBlocks(file, blocks) {
  const unit = 'Look here. <read_file>\n<path>src/a.ts</path>\n</read_file>\n'
  const text = unit.repeat(Math.ceil(blocks / 2))
  const lines = [JSON.stringify({ meta: { blocks } })]
  for (let i = 0; i < text.length; i += 16) lines.push(JSON.stringify({ t: i, text: text.slice(i, i + 16) }))
  writeFileSync(file, lines.join('\n') + '\n')
}

if (only.has('final')) {
  const time = {}
  for (const n of [100_000, 400_000]) {
    const f = join(dir, `blocks${n}.jsonl`)
    writeManyBlocks(f, n)
    for (const mode of ['plain', 'final']) {
      const r = await runCli(['replay', f, '--speed', '0', ...(mode === 'plain' ? [] : [`--${mode}`])])
      time[`${mode}${n}`] = r.ms
      rows.push([`CLI replay${mode === 'plain' ? '' : ` --${mode}`}, one turn of ${n / 1000}k blocks`, '-', `${fmt(r.ms / 1000, 2)} s, ${fmt(r.bytes / 1e6, 1)} MB out`, `${fmt(r.rssMB, 0)} MB`])
    }
    rmSync(f)
  }
  const vsPlain = time.final100000 / time.plain100000
  const scale = time.final400000 / time.final100000
  console.log(`--final / plain replay at 100k blocks: ×${fmt(vsPlain, 2)} (target <= 2); --final 400k / 100k blocks: ×${fmt(scale, 2)} (4x the blocks; target <= 6)\n`)
  // --snapshots: the output is the whole array per chunk (blocks x chunks bytes), so 4x the blocks
  // is ~16x the output; the work besides it is linear, so the output rate stays the same
  const rate = {}
  for (const n of [1_000, 4_000]) {
    const f = join(dir, `snap${n}.jsonl`)
    writeManyBlocks(f, n)
    const r = await runCli(['replay', f, '--speed', '0', '--snapshots'])
    rate[n] = r.bytes / 1e6 / (r.ms / 1000)
    rows.push([`CLI replay --snapshots, one turn of ${n / 1000}k blocks`, `${fmt(rate[n])} MB/s out`, `${fmt(r.ms / 1000, 2)} s, ${fmt(r.bytes / 1e6, 0)} MB out`, `${fmt(r.rssMB, 0)} MB`])
    rmSync(f)
  }
  console.log(`--snapshots output rate, 4k / 1k blocks: ×${fmt(rate[4000] / rate[1000], 2)} (the work per byte of output does not grow with the blocks: target >= 0.5)\n`)
  if (!(rate[4000] / rate[1000] >= 0.5)) failures.push(`--snapshots output rate falls ×${fmt(rate[1000] / rate[4000], 2)} for 4x the blocks`)
  if (!(vsPlain <= 2)) failures.push(`--final is ×${fmt(vsPlain, 2)} plain replay`)
  if (!(scale <= 6)) failures.push(`--final grows ×${fmt(scale, 2)} for 4x the blocks`)
}

// --- stats over workers --------------------------------------------------------------------
if (only.has('stats')) {
const files = []
for (let i = 0; i < 48; i++) {
  const f = join(dir, `s${i}.jsonl`)
  await writeLog(f, 2, i + 7)
  files.push(f)
}
const statsBytes = files.reduce((n, f) => n + statSync(f).size, 0)
one = await runCli(['stats', '--json', '--jobs', '1', ...files])
two = await runCli(['stats', '--json', '--jobs', '2', ...files])
rows.push([`stats --jobs 1, ${files.length} files, ${fmt(statsBytes / 1e6, 0)} MB`, `${fmt(statsBytes / 1e6 / (one.ms / 1000))} MB/s`, `${fmt(one.ms / 1000, 2)} s`, `${fmt(one.rssMB, 0)} MB`])
rows.push([`stats --jobs 2, same files`, `${fmt(statsBytes / 1e6 / (two.ms / 1000))} MB/s`, `${fmt(two.ms / 1000, 2)} s (speed-up ×${fmt(one.ms / two.ms, 2)})`, `${fmt(two.rssMB, 0)} MB`])
}

console.log('| measure | throughput | time | peak RSS |\n| --- | --- | --- | --- |')
for (const r of rows) console.log(`| ${r.join(' | ')} |`)

if (bigRun !== undefined) {
  const ok = bigRun.rssMB < RSS_TARGET_MB
  console.log(`\nTarget: peak RSS of the ${fmt(bigBytes / 1e6, 0)} MB replay under ${RSS_TARGET_MB} MB: ${fmt(bigRun.rssMB, 0)} MB, ${ok ? 'met' : 'MISSED'}` +
    ` (${fmt(smallBytes / 1e6, 0)} MB file: ${fmt(smallRun.rssMB, 0)} MB, so the peak does not follow the file's size).`)
  if (!ok) failures.push(`the ${fmt(bigBytes / 1e6, 0)} MB replay needs ${fmt(bigRun.rssMB, 0)} MB`)
}
if (one !== undefined) console.log(`stats --jobs 2 speed-up over --jobs 1: ×${fmt(one.ms / two.ms, 2)} on ${availableParallelism()} cores.`)
for (const f of failures) console.log(`MISSED: ${f}`)
if (failures.length > 0) process.exitCode = 1
