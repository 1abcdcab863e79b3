/**
 * The lookup tables of a dialect: tag names per parser mode with every prefix of every tag
 * (for "could this cut text still become a tag?"), built once per dialect; and the test for an
 * unknown tag that looks like a tool call (diagnostics).
 * @internal
 * @module
 */
import type { Dialect } from '../dialect.js'

/** Extra room for white space inside brackets with `lenientTags`. */
export const LENIENT_SLACK = 16

/**
 * Tag names of one mode, with every prefix of every tag for "could this still become a tag?".
 * @group Parsing
 */
export class TagSet {
  readonly names = new Set<string>()
  readonly prefixes = new Set<string>()
  maxInner = 0
  /**
   * Every tag of the set, `<(name|...)>`, and the same with blanks inside the brackets
   * (`lenientTags`; a superset, whose matches the tag reader confirms): a scanner jumps from tag
   * to tag with one search instead of stopping at every '<' (measured stand-alone on '<'-dense
   * prose: 94% of a bare indexOf('<') scan; on sparse prose the regex runs ~8x slower than indexOf,
   * hence nextExactTag). Global regexes: set
   * `lastIndex` before each `exec`.
   */
  exact = /(?!)/g
  lenient = /(?!)/g
  /** The same two, sticky: does a tag match exactly at `lastIndex`? */
  exactAt = /(?!)/y
  lenientAt = /(?!)/y
  /**
   * Characters (UTF-16 units) such that every name holds one, chosen rare in prose: a scanner
   * finds tag candidates by an indexOf of each (a memchr-like scan that never stops at the '<'
   * of prose) and looks back from each hit for the '<' (tag-reader.ts).
   */
  anchors: string[] = []
  /**
   * Per anchor, where it first stands in the names that are found by it (each name by its
   * rarest anchor): a hit can only be in a tag if the character before one of these offsets is
   * '<' or a blank, which rejects most hits in prose at one look.
   */
  anchorOffsets: number[][] = []
  /**
   * The exact tags (`name>`) by the first two characters after the '<' (each & 127, so that any
   * name has a key; a shared key only costs a compare): `pairIndex[key]` is 1 + the index of their
   * list in `byPair`, or 0 when no tag starts so.
   */
  readonly pairIndex = new Uint16Array(1 << 14)
  byPair: string[][] = []
  /** The same lists of tags by their name alone (`byPair[k][i]` is `byPairName[k][i] + '>'`). */
  byPairName: string[][] = []
  add(inner: string): void {
    this.names.add(inner)
    for (let i = 0; i <= inner.length; i++) this.prefixes.add(inner.slice(0, i))
    if (inner.length > this.maxInner) this.maxInner = inner.length
  }

  /** Builds the regexes once every name is in. */
  compile(): void {
    // longest first, so that no name is tried after a shorter one that is its prefix
    const names = [...this.names].sort((a, b) => b.length - a.length)
    if (names.length === 0) return
    const esc = (x: string): string => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    this.exact = new RegExp(`<(${names.map(esc).join('|')})>`, 'g')
    // a run of blanks no longer than any tag the reader accepts (UNKNOWN_MAX + LENIENT_SLACK + 1
    // at most), which also bounds the regex's backtracking at each '<'; the leading runs as an
    // optional group of one or more blanks, which V8 runs ~12% faster on '<'-dense prose than a
    // run of zero or more
    const k = this.maxInner + 65
    const b = `(?:[ \\t]{1,${k}})?`
    const lenientName = (x: string): string => (x.startsWith('/') ? `/${b}${esc(x.slice(1))}` : esc(x))
    this.lenient = new RegExp(`<${b}(?:${names.map(lenientName).join('|')})[ \\t]{0,${k}}>`, 'g')
    this.exactAt = new RegExp(this.exact.source, 'y')
    this.lenientAt = new RegExp(this.lenient.source, 'y')
    for (const x of names) {
      const tag = x + '>'
      const key = pairKey(tag.charCodeAt(0), tag.charCodeAt(1))
      if (this.pairIndex[key] === 0) {
        this.pairIndex[key] = this.byPair.push([]) as number
        this.byPairName.push([])
      }
      this.byPair[this.pairIndex[key]! - 1]!.push(tag)
      this.byPairName[this.pairIndex[key]! - 1]!.push(x)
    }
    const { anchors, offsets } = anchorsOf(names)
    this.anchors = anchors
    this.anchorOffsets = offsets
  }
}

/** The key of `TagSet.pairIndex` for a '<' followed by characters `a` and `b`. */
export function pairKey(a: number, b: number): number {
  return ((a & 127) << 7) | (b & 127)
}

/** The exact tag of `tags` whose '<' is at `s` in `w`: its name, or null when none is there. */
export function exactTagAt(tags: TagSet, w: string, s: number): string | null {
  const k = tags.pairIndex[pairKey(w.charCodeAt(s + 1), w.charCodeAt(s + 2))]!
  if (k === 0) return null
  // at most one can match: a name holds no '>', so no tag is a prefix of another
  for (const tag of tags.byPair[k - 1]!) if (w.startsWith(tag, s + 1)) return tag.slice(0, -1)
  return null
}

/**
 * The exact tag of `tags` whose '<' is at `s` in `w`, as exactTagAt finds it, named by the set's
 * own string: no slice, and its hash, which name sets look up, is already computed.
 */
export function exactNameAt(tags: TagSet, w: string, s: number): string | null {
  const k = tags.pairIndex[pairKey(w.charCodeAt(s + 1), w.charCodeAt(s + 2))]!
  if (k === 0) return null
  const list = tags.byPair[k - 1]!
  for (let x = 0; x < list.length; x++) if (w.startsWith(list[x]!, s + 1)) return tags.byPairName[k - 1]![x]!
  return null
}

/** A run of this many '<' ... */
export const DENSE_RUN = 8
/** ... each within this many characters of the run's start per '<' makes text '<'-dense. */
export const DENSE_GAP = 32

/**
 * The index of the next exact tag of `tags` in `w` at or after `p`, or -1. Sparse '<' are found
 * by indexOf (a memchr-like scan, ~8x faster than the tag regex over prose) and each is checked by
 * its next two characters; in a '<'-dense run (HTML, generics) one search of the tag regex beats an
 * indexOf call per '<' (~7 ns each), so the scan hands the rest to it. Either way every '<' is
 * looked at once: linear.
 */
export function nextExactTag(tags: TagSet, w: string, p: number, first = w.indexOf('<', p)): number {
  let run = p
  let dense = 0
  for (let i = first; i >= 0; i = w.indexOf('<', i + 1)) {
    if (tags.pairIndex[pairKey(w.charCodeAt(i + 1), w.charCodeAt(i + 2))] !== 0 && exactTagAt(tags, w, i) !== null) return i
    if (i - run < DENSE_GAP * (dense + 1)) {
      if (++dense >= DENSE_RUN) {
        const re = tags.exact
        re.lastIndex = i + 1
        const m = re.exec(w)
        return m === null ? -1 : m.index
      }
    } else {
      dense = 0
      run = i
    }
  }
  return -1
}

/** Rough frequency per mille of a character in English prose and code (rare ones default low). */
const FREQ: Record<string, number> = {
  e: 127, t: 91, a: 82, o: 75, i: 70, n: 67, s: 63, h: 61, r: 60, d: 43, l: 40, c: 28, u: 28, m: 24, w: 24, f: 22,
  g: 20, y: 20, p: 19, b: 15, v: 10, k: 8, j: 2, x: 2, q: 1, z: 1, _: 1, '.': 10, ',': 10, '-': 5, '"': 5, '(': 4, ')': 4,
}
function freq(c: string): number {
  if (Object.hasOwn(FREQ, c)) return FREQ[c]!
  return c >= 'A' && c <= 'Z' ? 3 : c >= '0' && c <= '9' ? 3 : c < '\u007f' ? 2 : 1
}

/** A character this rare or rarer is an anchor alone; a commoner one starts a longer anchor. */
const RARE = 10
/** V8 searches a pattern of up to 6 characters by a scan for its first and a compare. */
const LONG_ANCHOR = 6

/**
 * Anchors that every name holds, and per anchor the offsets where it first stands in the names it
 * finds. Each name's rarest character (ties to the one more names hold, so that one '_' serves
 * every snake_case name) is its anchor when rare; else the name's text from that character on
 * (up to LONG_ANCHOR characters), which V8 scans for as fast as for its first character alone
 * and which is seldom in prose (`conden` for `condense`: 26 us on 200 KB of prose, not
 * 41 us + a look at each of 5000 'c').
 */
function anchorsOf(names: readonly string[]): { anchors: string[]; offsets: number[][] } {
  const holders = new Map<string, number>()
  for (const x of names) for (const c of new Set(x.split(''))) holders.set(c, (holders.get(c) ?? 0) + 1)
  const own = new Map<string, string>()
  for (const x of names) {
    let best = ''
    for (const c of new Set(x.split(''))) {
      if (best === '' || freq(c) < freq(best) || (freq(c) === freq(best) && holders.get(c)! > holders.get(best)!)) best = c
    }
    own.set(x, freq(best) <= RARE ? best : x.slice(x.indexOf(best), x.indexOf(best) + LONG_ANCHOR))
  }
  const chosen = new Set(own.values())
  // drop an anchor that every name it finds can do without (another chosen one is in the name),
  // the commonest first
  const score = (c: string): number => (c.length > 1 ? 0 : freq(c))
  for (const c of [...chosen].sort((x, y) => score(y) - score(x))) {
    if (names.every((x) => !x.includes(c) || [...chosen].some((d) => d !== c && x.includes(d)))) chosen.delete(c)
  }
  const anchors = [...chosen]
  const offsets = anchors.map((): number[] => [])
  for (const x of names) {
    // the name's own anchor, or one it holds if its own was dropped
    let a = anchors.indexOf(own.get(x)!)
    if (a < 0) a = anchors.findIndex((c) => x.includes(c))
    const off = x.indexOf(anchors[a]!)
    if (!offsets[a]!.includes(off)) offsets[a]!.push(off)
  }
  return { anchors, offsets }
}

/**
 * The lookup tables of a dialect, built once per dialect and reasoning tags (dialects are frozen).
 * @group Parsing
 */
export interface Tables {
  tools: Set<string>
  params: Set<string>
  textTags: TagSet
  toolTags: TagSet
  /** Names already judged by looksLikeTool (prose repeats its `<div>`s). */
  unknownCache: Map<string, boolean>
  /** The lenient closing tags' name regexes, by param or reasoning tag name (lenient.ts). */
  closeNames: Map<string, RegExp>
}

const tableCache = new WeakMap<Dialect, Map<string, Tables>>()

/** The last lookup: most processes parse with one dialect and one profile all along. */
let last: { d: Dialect; reasoning: readonly string[]; t: Tables } | null = null

export function tables(d: Dialect, reasoning: readonly string[]): Tables {
  // the profiles' arrays are frozen constants (options.ts); a caller's own array is read again,
  // as it may have changed since
  if (last !== null && last.d === d && last.reasoning === reasoning && Object.isFrozen(reasoning)) return last.t
  const t = lookup(d, reasoning)
  last = { d, reasoning, t }
  return t
}

function lookup(d: Dialect, reasoning: readonly string[]): Tables {
  let byReasoning = tableCache.get(d)
  if (byReasoning === undefined) tableCache.set(d, (byReasoning = new Map()))
  const key = reasoning.join('\u0000')
  let t = byReasoning.get(key)
  if (t === undefined) {
    t = { tools: new Set(d.tools), params: new Set(d.params), textTags: new TagSet(), toolTags: new TagSet(), unknownCache: new Map(), closeNames: new Map() }
    for (const x of d.tools) t.textTags.add(x)
    for (const x of reasoning) t.textTags.add(x)
    for (const x of d.params) t.toolTags.add(x)
    for (const x of d.tools) t.toolTags.add('/' + x)
    t.textTags.compile()
    t.toolTags.compile()
    byReasoning.set(key, t)
  }
  return t
}

/**
 * A snake_case name, or one within two edits of a tool's, reads as an attempted tool call.
 * @group Parsing
 */
export function looksLikeTool(name: string, tools: Set<string>): boolean {
  if (/^[a-z][a-z0-9]*(_[a-z0-9]+)+$/u.test(name)) return true
  if (name.length < 5) return false
  for (const t of tools) if (Math.abs(t.length - name.length) <= 2 && editDistance(t, name, 2) <= 2) return true
  return false
}

function editDistance(a: string, b: string, cap: number): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const cur = [i]
    let best = i
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
      cur.push(v)
      if (v < best) best = v
    }
    if (best > cap) return cap + 1
    prev = cur
  }
  return prev[b.length]!
}
