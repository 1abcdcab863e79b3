// Deterministic inputs for the benchmarks, plus the small measuring and printing helpers they share.
//
// realisticMessage(size, seed): an assistant message as a Cline-style model writes it — prose with
// stray `<` (comparisons, `<div>` mentions, generics, tags with attributes, closing tags), then a
// read_file, a write_to_file whose content is a large TypeScript/TSX/HTML-ish file (many `<`, `</`
// and `<tag>` fragments), an execute_command with shell redirections, and closing prose. The
// write_to_file body takes ~75% of the characters, prose ~20%. ASCII only, so characters = bytes.
// Same (size, seed) → same string, on every machine (seeded PRNG, no Math.random).
//
// pathological(kind, size): inputs built to hurt a tag scanner (see PATHOLOGICAL).

import { existsSync, readFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'

/** mulberry32: a small, fast, seedable 32-bit PRNG. */
export function prng(seed) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n) => Math.floor(next() * n)
  const pick = (arr) => arr[int(arr.length)]
  return { next, int, pick }
}

export const KB = 1024
export const MB = 1024 * 1024

// ---------------------------------------------------------------------------------------------
// prose

const WORDS = (
  'the a this that file module function component state value parser stream chunk tag tool ' +
  'call test build config handler request response error user input output buffer index list ' +
  'map type interface class method return import export update change check read write run ' +
  'first then next now also so we I will should can need to of in for with on by from it is ' +
  'are be not and or but if when because after before which each every its their our new old ' +
  'small large simple quick fix bug issue path route server client cache token limit'
).split(' ')

// stray `<` as models write them in prose: comparisons, tags mentioned in backticks or not,
// generics, tags with attributes (not tags), closing tags, arrows, HTML comments, partial tags
const STRAY = [
  'if a < b', 'when n <= limit', 'x<y', 'the `<div>` wrapper', 'a <div> element', 'the </div> closing tag',
  '`Array<string>`', 'Promise<void>', 'Map<string, number[]>', '<br>', '<br/>', 'a <-> b', '<!-- note -->',
  '`<T extends object>`', '<read_file path="x"> is not a call', 'the <thinking> habit', '<<', 'i < 10 && j > 2',
  '</path> without an opening', '<Component prop={x} />', 'List<List<int>>', '`<content>` param', '< spaced >',
]

function sentence(r) {
  const n = 6 + r.int(14)
  const w = []
  for (let i = 0; i < n; i++) w.push(r.pick(WORDS))
  if (r.next() < 0.45) w.splice(1 + r.int(n - 1), 0, r.pick(STRAY))
  const s = w.join(' ')
  return s[0].toUpperCase() + s.slice(1) + r.pick(['.', '.', '.', ':', '?', '!'])
}

function prose(r, size) {
  let out = ''
  while (out.length < size) {
    let para = ''
    const k = 2 + r.int(5)
    for (let i = 0; i < k; i++) para += (i ? ' ' : '') + sentence(r)
    if (r.next() < 0.2) para = '- ' + para
    out += para + '\n\n'
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// code

const IDS = ['items', 'user', 'props', 'state', 'value', 'node', 'result', 'count', 'index', 'row', 'key', 'data', 'next', 'prev']
const TYPES = ['string', 'number', 'boolean', 'User', 'Item', 'Row', 'Node<T>', 'Record<string, unknown>', 'Array<number>']
const HTML = ['div', 'span', 'li', 'ul', 'section', 'p', 'button', 'label', 'td', 'tr', 'table', 'header', 'footer', 'nav']

const CODE_LINES = [
  (r) => `import { ${r.pick(IDS)}, ${r.pick(IDS)} } from './${r.pick(IDS)}.js'`,
  (r) => `export function ${r.pick(IDS)}${r.int(100)}<T extends ${r.pick(TYPES)}>(${r.pick(IDS)}: T[]): Map<string, T> {`,
  (r) => `  const ${r.pick(IDS)}: Array<${r.pick(TYPES)}> = []`,
  (r) => `  for (let i = 0; i < ${r.pick(IDS)}.length; i++) {`,
  (r) => `    if (${r.pick(IDS)}[i] < ${r.pick(IDS)} && i <= ${r.int(64)}) continue`,
  (r) => `    ${r.pick(IDS)}.set(${r.pick(IDS)}[i].id, ${r.pick(IDS)}[i] as ${r.pick(TYPES)})`,
  () => '  }',
  (r) => `  return ${r.pick(IDS)}.filter((x) => x.${r.pick(IDS)} << 1 > 0)`,
  () => '}',
  (r) => `interface ${r.pick(['Props', 'State', 'Options', 'Row'])}${r.int(50)} { ${r.pick(IDS)}: ${r.pick(TYPES)}; ${r.pick(IDS)}?: Promise<${r.pick(TYPES)}> }`,
  (r) => { const t = r.pick(HTML); return `    <${t} className="${r.pick(IDS)}">{${r.pick(IDS)}.${r.pick(IDS)}}</${t}>` },
  (r) => { const t = r.pick(HTML); return `      <${t}>` },
  (r) => { const t = r.pick(HTML); return `      </${t}>` },
  (r) => `    <${r.pick(['Item', 'Row', 'Cell'])} key={${r.pick(IDS)}} value={${r.pick(IDS)}} />`,
  () => '    <br/>',
  (r) => `  // ${sentence(r)}`,
  (r) => `  /** ${r.pick(['Returns', 'Maps', 'Checks'])} the ${r.pick(IDS)} when a < b. */`,
  (r) => `  const html = \`<p>\${${r.pick(IDS)}}</p>\``,
  () => '<!-- section -->',
  (r) => `  if (${r.pick(IDS)} <${r.pick(['', '=', ' '])}${r.int(9)}) return <span>{${r.pick(IDS)}}</span>`,
  () => '',
]

function code(r, size) {
  const lines = []
  let n = 0
  while (n < size) {
    const line = r.pick(CODE_LINES)(r)
    lines.push(line)
    n += line.length + 1
  }
  return lines.join('\n')
}

const COMMANDS = [
  'npm run build 2>&1 | tail -n 20', 'npx tsc --noEmit && npm test', 'ls -la src/ && cat package.json',
  'node scripts/check.js < fixtures/input.txt > out.txt', 'git diff --stat HEAD~1', 'grep -rn "<div" src/ | head',
]

/**
 * A realistic assistant message of about `size` characters (= bytes, ASCII).
 * @param {number} size target length in characters
 * @param {number} [seed]
 */
export function realisticMessage(size, seed = 1) {
  const r = prng(seed ^ size)
  const fileName = `src/components/${r.pick(['List', 'Table', 'Panel', 'Form'])}View.tsx`
  const proseSize = Math.max(200, Math.floor(size * 0.2))
  let m = ''
  m += prose(r, Math.floor(proseSize * 0.4))
  m += `<read_file>\n<path>src/${r.pick(IDS)}/index.ts</path>\n</read_file>\n\n`
  m += prose(r, Math.floor(proseSize * 0.2))
  const head = `<write_to_file>\n<path>${fileName}</path>\n<content>\n`
  const tail = `\n</content>\n</write_to_file>\n\n`
  const middle = prose(r, Math.floor(proseSize * 0.2))
  const cmd = `<execute_command>\n<command>${r.pick(COMMANDS)}</command>\n<requires_approval>false</requires_approval>\n</execute_command>\n\n`
  const closing = prose(r, Math.floor(proseSize * 0.2)).trimEnd()
  const bodySize = Math.max(100, size - m.length - head.length - tail.length - middle.length - cmd.length - closing.length)
  m += head + code(r, bodySize) + tail + middle + cmd + closing
  return flat(m)
}

/** A flat (sequential) copy of a string built by concatenation, so every consumer sees the same representation. */
export function flat(s) {
  return Buffer.from(s, 'utf8').toString('utf8')
}

// ---------------------------------------------------------------------------------------------
// pathological inputs

function fill(unit, size) {
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size)
}

/** Kinds of pathological input, each a function of the size. */
export const PATHOLOGICAL = {
  /** `<` repeated: every character is a tag candidate. */
  'all <': (size) => fill('<', size),
  /** `<read_file>` repeated: one tool opens, every later tag is a nested tool tag to drop. */
  'repeated <read_file>': (size) => fill('<read_file>', size),
  /** A greedy param full of closing-tag fragments (`</`, `</conten`, `</content `, `</path>` ...), then closed. */
  'param full of </': (size) => {
    const head = '<write_to_file><path>a.xml</path><content>'
    const tail = '</content></write_to_file>'
    const unit = '</ </c </con </conten </content </content  </contents> </path> </write_to_file </'
    return head + fill(unit, size - head.length - tail.length) + tail
  },
  /** `<write_to_file><content>` and then 1 MB of code with no closing tag. */
  'unclosed greedy param': (size) => {
    const head = '<write_to_file><content>'
    return head + code(prng(7), size).slice(0, size - head.length)
  },
}

/** @param {keyof typeof PATHOLOGICAL} kind */
export function pathological(kind, size) {
  return flat(PATHOLOGICAL[kind](size))
}

/** Splits a string into chunks of `n` characters. */
export function chunk(text, n) {
  const out = []
  for (let i = 0; i < text.length; i += n) out.push(text.slice(i, i + n))
  return out
}

// ---------------------------------------------------------------------------------------------
// measuring and printing

/**
 * The line each bench prints under its title: Node, the CPU (with its family/model numbers and
 * cache sizes where Linux tells them: the brand string of a virtual machine is often generic, and
 * results move with the host CPU and its caches), the CPU count, the load average, and whether
 * gc() is exposed.
 */
export function machineLine() {
  const cpu = cpus()[0]?.model ?? 'unknown CPU'
  let detail = ''
  try {
    const info = readFileSync('/proc/cpuinfo', 'utf8')
    const field = (k) => info.match(new RegExp(`^${k}\\s*:\\s*(.*)$`, 'm'))?.[1]
    const caches = []
    for (let i = 0; i < 8; i++) {
      const dir = `/sys/devices/system/cpu/cpu0/cache/index${i}`
      if (!existsSync(dir)) break
      const level = readFileSync(`${dir}/level`, 'utf8').trim()
      const type = readFileSync(`${dir}/type`, 'utf8').trim()
      if (type !== 'Instruction') caches.push(`L${level} ${readFileSync(`${dir}/size`, 'utf8').trim()}`)
    }
    detail = ` (family ${field('cpu family')} model ${field('model')}${caches.length > 0 ? `; the first CPU's caches: ${caches.join(', ')}` : ''})`
  } catch {
    // not Linux: the brand string alone
  }
  return `node ${process.version}, ${cpu}${detail}, ${cpus().length} CPUs, load average ${loadavg()[0].toFixed(2)} at start${typeof globalThis.gc === 'function' ? '' : ' (no --expose-gc: GC between samples disabled)'}`
}

/** Runs the collector if node was started with --expose-gc. */
export function gc() {
  if (typeof globalThis.gc === 'function') globalThis.gc()
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

/**
 * Times `fn`: `warmup` untimed calls, then `samples` samples; each sample repeats `fn` enough
 * times to last at least `minMs` (calibrated on the warm-up), and the result is the median time
 * per call in milliseconds. The return values of fn are kept in a sink so nothing is optimised away.
 */
export function measure(fn, { warmup = 3, samples = 7, minMs = 40 } = {}) {
  let sink = 0
  let t0 = performance.now()
  for (let i = 0; i < warmup; i++) sink ^= touch(fn())
  const once = Math.max((performance.now() - t0) / Math.max(1, warmup), 1e-4)
  const reps = Math.max(1, Math.ceil(minMs / once))
  const times = []
  for (let s = 0; s < samples; s++) {
    gc()
    t0 = performance.now()
    for (let i = 0; i < reps; i++) sink ^= touch(fn())
    times.push((performance.now() - t0) / reps)
  }
  measure.sink = sink
  return { ms: median(times), min: Math.min(...times), max: Math.max(...times), reps, samples }
}

/** Async version of {@link measure} (one call per repetition, awaited). */
export async function measureAsync(fn, { warmup = 2, samples = 5, minMs = 40 } = {}) {
  let t0 = performance.now()
  for (let i = 0; i < warmup; i++) await fn()
  const once = Math.max((performance.now() - t0) / Math.max(1, warmup), 1e-4)
  const reps = Math.max(1, Math.ceil(minMs / once))
  const times = []
  for (let s = 0; s < samples; s++) {
    gc()
    t0 = performance.now()
    for (let i = 0; i < reps; i++) await fn()
    times.push((performance.now() - t0) / reps)
  }
  return { ms: median(times), min: Math.min(...times), max: Math.max(...times), reps, samples }
}

/**
 * A warm-up of at least `calls` calls and `ms` milliseconds (so the JIT settles on the input),
 * and the repetitions a sample needs to last `minMs`, calibrated on the warm-up's second half:
 * the last call alone, when it met a GC pause, made every sample several times too short.
 */
class WarmUp {
  constructor(calls, ms) {
    this.min = calls
    this.ms = ms
    this.start = performance.now()
    this.calls = 0
    this.half = -1
    this.halfAt = 0
  }

  /** Whether to make one more call (counts it). */
  more() {
    const now = performance.now()
    if (this.calls >= this.min && now - this.start >= this.ms) return false
    if (this.half < 0 && now - this.start >= this.ms / 2) {
      this.half = this.calls
      this.halfAt = now
    }
    this.calls++
    return true
  }

  reps(minMs) {
    const now = performance.now()
    const once = this.half >= 0 && this.calls > this.half ? (now - this.halfAt) / (this.calls - this.half) : (now - this.start) / this.calls
    return Math.max(1, Math.ceil(minMs / Math.max(once, 1e-4)))
  }
}

/**
 * Times several functions against each other: each is warmed up and calibrated like in
 * {@link measure}, then the samples are taken round-robin (A B C A B C ...), so a change in the
 * machine's load during the measurement hits all of them alike and their ratios stay meaningful.
 * Returns one result per function, in order.
 */
export function measureInterleaved(fns, { warmup = 3, warmupMs = 150, samples = 7, minMs = 40 } = {}) {
  let sink = 0
  const reps = fns.map((fn) => {
    const w = new WarmUp(warmup, warmupMs)
    while (w.more()) sink ^= touch(fn())
    return w.reps(minMs)
  })
  const times = fns.map(() => [])
  for (let s = 0; s < samples; s++) {
    for (let k = 0; k < fns.length; k++) {
      const fn = fns[k]
      gc()
      const t0 = performance.now()
      for (let i = 0; i < reps[k]; i++) sink ^= touch(fn())
      times[k].push((performance.now() - t0) / reps[k])
    }
  }
  measure.sink = sink
  return times.map((t, k) => ({ ms: median(t), min: Math.min(...t), max: Math.max(...t), reps: reps[k], samples, times: t }))
}

/**
 * `a` ÷ `b` for results of one interleaved measurement: the median, over the rounds, of the ratio
 * of their samples in the same round (with several `b`, `a` ÷ their sum: a floor made of two
 * parts). The samples of a round are taken one right after the other, so a change in the
 * machine's speed between rounds (another tenant's load on the shared CPU and caches) divides
 * out of each ratio; the ratio of the two medians takes each median from whichever round it
 * falls in, and keeps that change. On this project's host (2026-12-03) a sample of the 1 MB JSX
 * parse ranged over ±40% within one run, and six runs of seven rounds of robust ÷ cline on it
 * gave 1.00–1.27 as the ratio of medians and 1.00–1.11 as the median of the paired ratios.
 */
export function pairedRatio(a, ...b) {
  return median(a.times.map((t, i) => t / b.reduce((sum, r) => sum + r.times[i], 0)))
}

/**
 * Async version of {@link measureInterleaved}. `settle`: calls of a function, untimed, after the
 * gc() and before each of its timed samples. A stream's run leaves the heap shaped by its own
 * allocation (the young generation's size, what was promoted), and the next function's first
 * runs pay for that shape. Measured on this project's host (2026-12-03) with a BlockParser
 * stream and a bare Transform stream of the same chunks, the bare one took 3.3-3.8 ms a stream
 * right after the BlockParser's sample and 2.5-3.0 ms right after a sample of a second bare
 * Transform. Settled, each sample is taken in its own function's steady state, whatever came
 * before it.
 */
export async function measureInterleavedAsync(fns, { warmup = 2, warmupMs = 150, samples = 5, minMs = 40, settle = 0 } = {}) {
  const reps = []
  for (const fn of fns) {
    const w = new WarmUp(warmup, warmupMs)
    while (w.more()) await fn()
    reps.push(w.reps(minMs))
  }
  const times = fns.map(() => [])
  for (let s = 0; s < samples; s++) {
    for (let k = 0; k < fns.length; k++) {
      gc()
      for (let i = 0; i < settle; i++) await fns[k]()
      const t0 = performance.now()
      for (let i = 0; i < reps[k]; i++) await fns[k]()
      times[k].push((performance.now() - t0) / reps[k])
    }
  }
  return times.map((t, k) => ({ ms: median(t), min: Math.min(...t), max: Math.max(...t), reps: reps[k], samples, times: t }))
}

function touch(v) {
  if (typeof v === 'number') return v | 0
  if (Array.isArray(v)) return v.length
  return v ? 1 : 0
}

/** MB/s for `bytes` processed in `ms`. */
export function mbps(bytes, ms) {
  return bytes / MB / (ms / 1000)
}

export function fmtSize(bytes) {
  if (bytes >= MB) return `${+(bytes / MB).toFixed(2)} MB`
  if (bytes >= KB) return `${+(bytes / KB).toFixed(1)} KB`
  return `${bytes} B`
}

/** A number with about 3 significant digits. */
export function num(x) {
  if (!Number.isFinite(x)) return String(x)
  const a = Math.abs(x)
  if (a >= 100) return Math.round(x).toLocaleString('en-US')
  if (a >= 10) return x.toFixed(1)
  if (a >= 1) return x.toFixed(2)
  return x.toPrecision(3)
}

/** A Markdown table. */
export function mdTable(header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n')
}

/** PASS / MISS line for a target. */
export function verdict(ok) {
  return ok ? 'PASS' : 'MISS'
}

// ---------------------------------------------------------------------------------------------
// issue 16 workloads (added at the end: the generators above are shared and stay as they are)

// prose as models write it about front-end code: a `<` about every 10 characters (HTML tags and
// closing tags, generics, comparisons, arrows, comments, tags with attributes, a parameter name
// mentioned in prose), never a whole tool tag
const DENSE = [
  'a<b', 'x <= y', '<div>', '</div>', '<span class="k">', '</span>', 'Array<T>', 'Map<K, V>', '<p>', '</p>',
  'i<n', '<li>', '</li>', '<br/>', '<!-- c -->', 'Set<T>', 'f<g<h>>', '< 3', '<em>', '</em>', '<a href="#">',
  '</a>', '<code>', '</code>', '`<path>`', '</content>', '<read_file x="1">', '<-', '<ul>', '</ul>', '<T,>',
  '<h1>', '</h1>', 'Vec<u8>', '<td>', '</td>', '<=>', '<input/>', '<b>', '</b>', 'n<0', '<tr>', '</tr>',
]

/**
 * Prose-dense text of about `size` characters: a `<` about every 10 characters, with a few tool
 * calls (one every ~16 KB) so the parser also leaves text mode.
 * @param {number} size target length in characters
 * @param {number} [seed]
 */
export function proseDenseMessage(size, seed = 1) {
  const r = prng(seed ^ size ^ 0x5eed)
  const parts = []
  let n = 0
  while (n < size) {
    let s = (r.next() < 0.7 ? r.pick(WORDS) + ' ' : '') + r.pick(DENSE) + (r.next() < 0.15 ? '.\n' : ' ')
    if (r.next() < 0.0007) s += `\n<read_file>\n<path>src/${r.pick(IDS)}/${r.pick(HTML)}.tsx</path>\n</read_file>\n`
    parts.push(s)
    n += s.length
  }
  return flat(parts.join(''))
}

const JSX_LINES = [
  (r) => { const t = r.pick(HTML); return `    <${t} className="${r.pick(IDS)}">{${r.pick(IDS)}.${r.pick(IDS)}}</${t}>` },
  (r) => `      <${r.pick(HTML)}>`,
  (r) => `      </${r.pick(HTML)}>`,
  (r) => `    <${r.pick(['Item', 'Row', 'Cell'])} key={${r.pick(IDS)}} value={${r.pick(IDS)}} />`,
  () => '    <br/>',
  (r) => `    {${r.pick(IDS)} < ${r.int(9)} && <span>{${r.pick(IDS)}}</span>}`,
  (r) => `    <svg viewBox="0 0 24 24"><path d="M${r.int(24)} ${r.int(24)}L${r.int(24)} ${r.int(24)}"/></svg>`,
  (r) => `  const ${r.pick(IDS)}: Array<${r.pick(TYPES)}> = []`,
  (r) => `    <${r.pick(HTML)}><${r.pick(HTML)}>{${r.pick(IDS)}}</${r.pick(HTML)}></${r.pick(HTML)}>`,
  () => '    <>',
  () => '    </>',
]

/**
 * A message whose bulk is one write_to_file of JSX/HTML-heavy code (nearly every line holds tags
 * and closing tags), between two short paragraphs, about `size` characters.
 * @param {number} size target length in characters
 * @param {number} [seed]
 */
export function jsxWriteMessage(size, seed = 1) {
  const r = prng(seed ^ size ^ 0x75c)
  const head = prose(r, 300) + `<write_to_file>\n<path>src/components/${r.pick(['List', 'Table', 'Panel', 'Form'])}View.tsx</path>\n<content>\nexport function View() {\n  return (\n`
  const tail = '\n  )\n}\n</content>\n</write_to_file>\n\n' + prose(r, 200).trimEnd()
  const lines = []
  let n = head.length + tail.length
  while (n < size) {
    const line = r.pick(JSX_LINES)(r)
    lines.push(line)
    n += line.length + 1
  }
  return flat(head + lines.join('\n') + tail)
}
