// `tagstream stats --json` is a mergeable partial, and `stats --merge` adds partials up (issue
// 12, "a corpus beyond one machine"): merging the stats of shards equals the stats of the whole,
// in any grouping and order; merged inputs are hostile (named errors, no write through
// `__proto__`); and the xargs -P recipe of the README works with the built bin.
import t from 'tap'
import fc from 'fast-check'
import { spawn } from 'node:child_process'
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { addInto, emptyTotal, totalOf, type FileStats, type StatsTotal } from '../examples/cli/stats-core.js'
import { statsHelp } from '../examples/cli/stats.js'
import { CLI, cliEnv, runCli } from './helpers/cli.js'

const LOGS = ['cline_task_history.json', 'chunk_log.jsonl', 'openai_chat.sse', 'anthropic_messages.sse'].map((f) => `examples/logs/${f}`)

interface Doc { kind: string; version: number; files: FileStats[]; total: StatsTotal }

/** A document without its timings, which differ from run to run. */
function counts(d: Doc): unknown {
  const strip = <T extends { parseMs: number; wallMs: number }>({ parseMs, wallMs, ...rest }: T): Omit<T, 'parseMs' | 'wallMs'> => rest
  return { ...d, files: d.files.map(strip), total: strip(d.total) }
}

async function statsJson(args: string[], input?: string): Promise<Doc> {
  const r = await runCli(['stats', '--json', ...args], input)
  if (r.code !== 0 || !/^[^\n]+\n$/.test(r.stdout)) throw new Error(`stats ${args.join(' ')}: not one line (exit ${r.code}): ${r.stderr}`)
  return JSON.parse(r.stdout) as Doc
}

t.test('--json is counts and sums only: no average that cannot be combined', async (t) => {
  const d = await statsJson(LOGS)
  t.equal(d.kind, 'tagstream-stats')
  t.equal(d.version, 1)
  t.notOk('parseMBps' in d.total || d.files.some((f) => 'parseMBps' in f), 'no MB/s: it is textBytes / parseMs')
  t.equal(d.total.fileCount, LOGS.length)
  t.equal(d.total.wallMs, d.files.reduce((a, f) => a + f.wallMs, 0), 'the total\'s time is the sum of its files\'')
  t.match(d.total, { turns: 8, toolCallsTotal: 9, format: 'mixed' })
  const only = await statsJson(['--total-only', ...LOGS])
  t.same(only.files, [], '--total-only: no per-file entries')
  t.same(counts(only), { ...(counts(d) as Doc), files: [] }, 'and the same total')
})

t.test('merging per-file stats equals stats over all files (files, stdin, merged again)', async (t) => {
  const dir = t.testdir()
  const all = await statsJson(LOGS)
  const parts = await Promise.all(LOGS.map((f) => statsJson([f])))
  const names = parts.map((p, i) => {
    const name = join(dir, `part${i}.json`)
    writeFileSync(name, JSON.stringify(p) + '\n')
    return name
  })
  const fromFiles = JSON.parse((await runCli(['stats', '--merge', '--json', ...names])).stdout) as Doc
  t.same(counts(fromFiles), counts(all), 'files')
  t.equal(fromFiles.total.parseMs, parts.reduce((a, p) => a + p.total.parseMs, 0), 'times add up too')
  const totalOnly = JSON.parse((await runCli(['stats', '--merge', '--json', '--total-only', ...names])).stdout) as Doc
  t.same(counts(totalOnly), { ...(counts(all) as Doc), files: [] }, '--total-only: the total alone')
  t.same(counts(JSON.parse((await runCli(['stats', '--merge', '--json'], JSON.stringify(totalOnly))).stdout) as Doc), counts(totalOnly), 'which merges as a part with no files')
  const stdin = parts.map((p) => JSON.stringify(p)).join('\n') + '\n'
  t.same(counts(JSON.parse((await runCli(['stats', '--merge', '--json'], stdin)).stdout) as Doc), counts(all), 'stdin, one line per run')
  t.same(counts(JSON.parse((await runCli(['stats', '--merge', '--json', '-'], stdin)).stdout) as Doc), counts(all), 'stdin as -')
  // a merge is itself mergeable: (p0 p1) (p2 p3)
  const left = join(dir, 'left.json')
  const right = join(dir, 'right.json')
  writeFileSync(left, (await runCli(['stats', '--merge', '--json', names[0]!, names[1]!])).stdout)
  writeFileSync(right, (await runCli(['stats', '--merge', '--json', names[2]!, names[3]!])).stdout)
  t.same(counts(JSON.parse((await runCli(['stats', '--merge', '--json', left, right])).stdout) as Doc), counts(all), 'merged merges')
  // the table: each file, then the total
  const table = await runCli(['stats', '--merge', ...names])
  t.equal(table.code, 0)
  t.match(table.stdout, /cline_task_history\.json \(cline, [\s\S]*total \(4 files\) \(mixed, [\d.]+ kB\)\n {2}turns 8 · tool calls 9 /)
  t.equal(table.stdout, (await runCli(['stats', '--merge'], stdin)).stdout, 'from stdin, the same table')
})

// ---- the law, on arbitrary stats ------------------------------------------------------------

const NAMES = ['read_file', 'write_to_file', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'x']
const byName = fc.dictionary(fc.constantFrom(...NAMES), fc.nat({ max: 1000 }), { maxKeys: 4 })
const fileStats: fc.Arbitrary<FileStats> = fc.record({
  file: fc.string(),
  format: fc.constantFrom('chunklog' as const, 'cline' as const, 'openai' as const, 'anthropic' as const),
  bytes: fc.nat(), turns: fc.nat(), textBytes: fc.nat(), reasoningBytes: fc.nat(),
  toolCalls: byName, toolCallsTotal: fc.nat(), nativeCalls: byName, nativeCallsTotal: fc.nat(), invalidNativeCalls: fc.nat(),
  unclosedCalls: fc.nat(), truncatedCalls: fc.nat(),
  unknownTags: byName,
  // whole milliseconds: sums of floats depend on their grouping in the last bits
  parseMs: fc.nat(), wallMs: fc.nat(), skipped: fc.nat(),
})

/** A list cut into consecutive shards at the given points. */
function shards<T>(xs: T[], cuts: number[]): T[][] {
  const at = [...new Set(cuts.map((c) => c % (xs.length + 1)))].sort((a, b) => a - b)
  const out: T[][] = []
  let from = 0
  for (const c of [...at, xs.length]) {
    out.push(xs.slice(from, c))
    from = c
  }
  return out.filter((s) => s.length > 0)
}

/** Counts by name as a plain comparable value (own keys, `__proto__` included). */
const plain = (total: StatsTotal): unknown => JSON.parse(JSON.stringify(total)) as unknown

t.test('the law: the total of shards, added in any grouping and order, is the total of all', async (t) => {
  fc.assert(fc.property(fc.array(fileStats, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 5 }), fc.boolean(), (files, cuts, reverse) => {
    const parts = shards(files, cuts).map((s) => totalOf(s))
    if (reverse) parts.reverse()
    const merged = parts.reduce((into, p) => addInto(into, p), emptyTotal())
    const whole = totalOf(files)
    const { toolCalls: a, unknownTags: b, nativeCalls: e, ...mergedRest } = plain(merged) as StatsTotal
    const { toolCalls: c, unknownTags: d, nativeCalls: f, ...wholeRest } = plain(whole) as StatsTotal
    // the order of names follows the order of files, which a reversed merge changes
    return isDeepStrictEqual(mergedRest, wholeRest) && isDeepStrictEqual(sorted(a), sorted(c)) && isDeepStrictEqual(sorted(b), sorted(d)) && isDeepStrictEqual(sorted(e), sorted(f))
  }), { numRuns: 300 })
  t.equal(Object.getPrototypeOf({}), Object.prototype)
  t.notOk(Object.hasOwn(Object.prototype, 'read_file'), 'no name reached Object.prototype')
})

const sorted = (o: Record<string, number>): [string, number][] => Object.entries(o).sort(([x], [y]) => (x < y ? -1 : 1))

t.test('the law through the CLI: --merge of shard lines equals the line of all files', async (t) => {
  const doc = (files: FileStats[]): string => JSON.stringify({ kind: 'tagstream-stats', version: 1, files, total: totalOf(files) })
  await fc.assert(fc.asyncProperty(fc.array(fileStats, { minLength: 1, maxLength: 8 }), fc.array(fc.nat(), { maxLength: 4 }), async (files, cuts) => {
    const input = shards(files, cuts).map(doc).join('\n') + '\n'
    const r = await runCli(['stats', '--merge', '--json'], input)
    return r.code === 0 && r.stdout === doc(files) + '\n'
  }), { numRuns: 60 })
})

// ---- hostile inputs ---------------------------------------------------------------------------

t.test('merge inputs are hostile: a bad or foreign line is an error naming file and line', async (t) => {
  const dir = t.testdir()
  const good = (await runCli(['stats', '--json', LOGS[1]!])).stdout
  const doc = JSON.parse(good) as Doc
  const variant = (f: (d: Doc & Record<string, unknown>) => unknown): string => {
    const d = JSON.parse(good) as Doc & Record<string, unknown>
    f(d)
    return JSON.stringify(d)
  }
  const cases: [string, string, RegExp][] = [
    ['not-json.json', good + '{"kind":', /not-json\.json: line 2: not JSON/],
    ['foreign.json', '{"files":[],"total":{}}\n', /foreign\.json: line 1: not the output of 'tagstream stats --json'/],
    ['array.json', '[1,2]\n', /array\.json: line 1: not the output/],
    ['null.json', 'null\n', /null\.json: line 1: not the output/],
    ['version.json', variant((d) => (d.version = 2)), /version\.json: line 1: stats version 2, this tagstream reads version 1/],
    ['files.json', variant((d) => ((d as Record<string, unknown>).files = {})), /files\.json: line 1: "files" is not an array/],
    ['negative.json', variant((d) => (d.total.turns = -1)), /negative\.json: line 1: total\.turns: expected a count, got -1/],
    ['fraction.json', variant((d) => (d.files[0]!.bytes = 1.5)), /fraction\.json: line 1: files\[0\]\.bytes: expected a count, got 1\.5/],
    ['string.json', variant((d) => ((d.total as unknown as Record<string, unknown>).parseMs = '3')), /string\.json: line 1: total\.parseMs: expected a number >= 0, got "3"/],
    ['infinite.json', good.replace('"parseMs":', '"parseMs":1e999,"x":'), /infinite\.json: line 1: total\.parseMs|files\[0\]\.parseMs: expected a number >= 0/],
    ['format.json', variant((d) => ((d.files[0] as unknown as Record<string, unknown>).format = 'xml')), /format\.json: line 1: files\[0\]\.format: expected one of chunklog, cline, openai, anthropic, mixed, got "xml"/],
    ['calls.json', variant((d) => ((d.total as unknown as Record<string, unknown>).toolCalls = [1])), /calls\.json: line 1: total\.toolCalls: expected an object of counts by name/],
    ['call.json', variant((d) => (d.total.toolCalls = { read_file: 'many' as unknown as number })), /call\.json: line 1: total\.toolCalls\["read_file"\]: expected a count, got "many"/],
    ['noname.json', variant((d) => delete (d.files[0] as Partial<FileStats>).file), /noname\.json: line 1: files\[0\]\.file: expected a string, got undefined/],
    ['count.json', variant((d) => (d.total.fileCount = 0)), /count\.json: line 1: 1 files but total\.fileCount 0/],
    ['nocount.json', variant((d) => delete (d.total as Partial<StatsTotal>).fileCount), /nocount\.json: line 1: total\.fileCount: expected a count, got undefined/],
    ['empty.json', '', /empty\.json: no stats line .*a run that failed/],
    ['blank.json', '\n\n', /blank\.json: no stats line/],
  ]
  for (const [name, text, re] of cases) {
    writeFileSync(join(dir, name), text)
    const r = await runCli(['stats', '--merge', '--json', join(dir, name)])
    t.equal(r.code, 1, `${name}: exit 1`)
    t.match(r.stderr, re, name)
    t.notMatch(r.stderr, /\n\s+at /, `${name}: no stack trace`)
  }
  const stdin = await runCli(['stats', '--merge'], good + 'oops\n')
  t.equal(stdin.code, 1)
  t.match(stdin.stderr, /<stdin>: line 2: not JSON/, 'stdin is named too')
  const missing = await runCli(['stats', '--merge', join(dir, 'nope.json')])
  t.equal(missing.code, 1)
  t.match(missing.stderr, /cannot read .*nope\.json: no such file/)
  t.equal(doc.files.length, 1)
})

t.test('merge inputs: tool names such as __proto__ are counted, never written through', async (t) => {
  const line = (calls: string): string => `{"kind":"tagstream-stats","version":1,"files":[],"total":{"fileCount":1,"format":"cline","bytes":1,"turns":1,"textBytes":1,"reasoningBytes":0,"toolCalls":${calls},"toolCallsTotal":3,"unclosedCalls":0,"truncatedCalls":0,"unknownTags":${calls},"parseMs":1,"wallMs":1,"skipped":0,"__proto__":{"polluted":true}}}`
  const input = [line('{"__proto__":1,"constructor":2}'), line('{"__proto__":2,"toString":1}')].join('\n')
  const r = await runCli(['stats', '--merge', '--json'], input)
  t.equal(r.code, 0, r.stderr)
  const total = (JSON.parse(r.stdout) as Doc).total
  const own = (o: object): [string, unknown][] => Object.getOwnPropertyNames(o).map((k) => [k, (o as Record<string, unknown>)[k]])
  t.same(own(total.toolCalls), [['__proto__', 3], ['constructor', 2], ['toString', 1]], 'counted as names, in a JSON own property')
  t.same(own(total.unknownTags), [['__proto__', 3], ['constructor', 2], ['toString', 1]])
  t.notOk('polluted' in total, 'an unknown key of the input does not reach the output')
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype untouched')
  const table = await runCli(['stats', '--merge'], input)
  t.match(table.stdout, /calls: __proto__ 3, constructor 2, toString 1/)
})

t.test('usage: --merge reads stats lines, not logs; --total-only goes with --json', async (t) => {
  for (const [args, re] of [
    [['--merge', '--jobs', '2'], /--jobs applies to logs, not to --merge/],
    [['--merge', '--format', 'cline'], /--format applies to logs/],
    [['--merge', '--profile', 'robust'], /--profile applies to logs/],
    [['--total-only', LOGS[0]!], /--total-only goes with --json/],
  ] as [string[], RegExp][]) {
    const r = await runCli(['stats', ...args])
    t.equal(r.code, 2, args.join(' '))
    t.match(r.stderr, re)
  }
  t.match((await runCli(['stats', '--help'])).stdout, /--merge[\s\S]*xargs -0 -n 100 -P 4/)
})

// ---- the README's recipe, end to end ----------------------------------------------------------

t.test('map with xargs -P, reduce with --merge: the README recipe, with the built bin', async (t) => {
  const dir = t.testdir({ logs: {}, bin: {} })
  const logs = join(dir, 'logs')
  // 24 logs: the bundled ones under several names
  for (let i = 0; i < 24; i++) copyFileSync(LOGS[i % LOGS.length]!, join(logs, `log${String(i).padStart(2, '0')}${LOGS[i % LOGS.length]!.slice(LOGS[i % LOGS.length]!.lastIndexOf('.'))}`))
  const bin = join(dir, 'bin', 'tagstream')
  writeFileSync(bin, `#!/bin/sh\nexec "${process.execPath}" "${resolve(CLI)}" "$@"\n`)
  chmodSync(bin, 0o755)
  const sh = (script: string): Promise<{ code: number | null; stdout: string; stderr: string }> => new Promise((done, fail) => {
    const child = spawn('sh', ['-c', script], { cwd: dir, env: cliEnv({ PATH: `${join(dir, 'bin')}:${process.env.PATH ?? ''}` }) })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()))
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()))
    child.on('error', fail)
    child.on('close', (code) => done({ code, stdout, stderr }))
  })
  // the recipe as `stats --help` gives it, with shards of 5 files, 3 at a time
  const recipe = statsHelp.slice(statsHelp.indexOf('  mkdir parts')).replace(/\\\n/g, '').split('\n').map((l) => l.trim()).filter((l) => l !== '')
  t.equal(recipe.length, 3, 'mkdir, map, reduce')
  t.ok(recipe[1]!.includes('xargs -0 -n 100 -P 4'))
  const map = await sh(`${recipe[0]} && ${recipe[1]!.replace('-n 100 -P 4', '-n 5 -P 3')}`)
  t.equal(map.code, 0, map.stderr)
  t.equal(readdirSync(join(dir, 'parts')).length, 5, 'one part per shard of 5 files')
  const table = await sh(recipe[2]!)
  t.equal(table.code, 0, table.stderr)
  t.match(table.stdout, /total \(24 files\) \(mixed, [\d.]+ kB\)\n {2}turns 48 · tool calls 54 /)
  const reduce = await sh(`${recipe[2]} --json`)
  t.equal(reduce.code, 0, reduce.stderr)
  const whole = await sh('tagstream stats --json logs/*')
  const sortFiles = (d: Doc): Doc => ({ ...d, files: [...d.files].sort((a, b) => (a.file < b.file ? -1 : 1)) })
  const merged = sortFiles(JSON.parse(reduce.stdout) as Doc)
  const all = sortFiles(JSON.parse(whole.stdout) as Doc)
  t.same((counts(merged) as Doc).files, (counts(all) as Doc).files, 'the same files')
  const mt = (counts(merged) as Doc).total
  const at = (counts(all) as Doc).total
  t.same({ ...mt, toolCalls: sorted(mt.toolCalls), unknownTags: sorted(mt.unknownTags) }, { ...at, toolCalls: sorted(at.toolCalls), unknownTags: sorted(at.unknownTags) }, 'the same total')
  t.equal(mt.fileCount, 24)
  const piped = await sh('cat parts/* | tagstream stats --merge --json')
  t.equal(piped.stdout, reduce.stdout, 'the parts through a pipe: the same line')
  t.ok(readFileSync(join(dir, 'parts', readdirSync(join(dir, 'parts'))[0]!), 'utf8').endsWith('}\n'))
})
