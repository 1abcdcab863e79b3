// Runs every bench/*.bench.mjs (sorted by name), each in its own `node --expose-gc` child process
// so that each measures its own peak memory and none inherits another's JIT or heap state.
// Output is streamed as it comes. Exits 1 if any bench fails (after running all of them).
//
//   npm run bench                    # build, then every bench
//   node bench/run.mjs parse stream  # only the benches whose file name contains one of the words
import { spawn } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const filters = process.argv.slice(2)

if (!existsSync(join(here, '..', 'dist', 'index.js'))) {
  console.error('bench: dist/index.js is missing; run `npm run build` first (or `npm run bench`, which builds).')
  process.exit(1)
}

const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.mjs'))
  .filter((f) => filters.length === 0 || filters.some((w) => f.includes(w)))
  .sort()

if (files.length === 0) {
  console.error(`bench: no bench/*.bench.mjs file${filters.length ? ` matches ${filters.join(', ')}` : ''}`)
  process.exit(1)
}

function run(file) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--expose-gc', join(here, file)], { stdio: 'inherit' })
    child.on('error', (err) => resolve({ code: 1, signal: null, err }))
    child.on('exit', (code, signal) => resolve({ code, signal }))
  })
}

const fmtLoad = () => loadavg().map((x) => x.toFixed(2)).join(' ')
console.log(`# tagstream benchmarks\n\n${files.length} bench file(s): ${files.join(', ')}. Load average before: ${fmtLoad()} ` +
  '(other processes on the machine skew absolute figures; the targets compare figures measured in the same run).\n')

const summary = []
const t0 = Date.now()
for (const file of files) {
  const started = Date.now()
  const r = await run(file)
  const secs = ((Date.now() - started) / 1000).toFixed(1)
  const ok = r.code === 0
  summary.push([file, ok ? 'ok' : r.err ? `failed to start: ${r.err.message}` : r.signal ? `killed by ${r.signal}` : `exit ${r.code}`, `${secs} s`])
  console.log('')
}

console.log('## Summary\n')
console.log('| bench | status | time |\n| --- | --- | --- |')
for (const row of summary) console.log(`| ${row.join(' | ')} |`)
console.log(`\nTotal ${((Date.now() - t0) / 1000).toFixed(1)} s; load average after: ${fmtLoad()}`)
const failed = summary.filter((r) => r[1] !== 'ok')
if (failed.length > 0) {
  console.error(`\nbench: ${failed.length} of ${summary.length} failed: ${failed.map((r) => r[0]).join(', ')}`)
  process.exit(1)
}
