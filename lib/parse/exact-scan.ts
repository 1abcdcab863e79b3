/**
 * The exact scanners' searches over a window: the closing tag of a value, and a tag candidate cut
 * by the window's end. Plain functions over their arguments and the dialect's immutable tables,
 * not methods reading the engine's fields, and the robust options never run through them: each
 * stays specialised to its profile.
 * @internal
 * @module
 */
import { LENIENT_SLACK } from './tags.js'

/**
 * A tag candidate cut by the end of `w`: the last '<' at or after `from`, if it is among the last
 * `max` + 1 characters and what follows it is a prefix of a tag in `prefixes`; its index, or -1.
 * Only there can a tag cut by the end of the window start.
 */
export function cutAt(w: string, from: number, prefixes: Set<string>, max: number): number {
  // one search from the end, over those characters only: V8's lastIndexOf is a runtime call,
  // several times the cost of the loop on a streamed chunk (44 instructions a chunk on a prose
  // stream, by callgrind, where a chunk with a '<' comes here from takesWhole)
  const stop = Math.max(from, w.length - max - 1)
  let s = w.length - 1
  while (s >= stop && w.charCodeAt(s) !== 60) s--
  return s >= stop && prefixes.has(w.slice(s + 1)) ? s : -1
}

/** Is `w.slice(l)` a prefix of `close`? (Without the slice: this runs on every streamed chunk.) */
function isPrefixAt(close: string, w: string, l: number): boolean {
  const k = w.length - l
  if (k > close.length) return false
  for (let i = 1; i < k; i++) if (w.charCodeAt(l + i) !== close.charCodeAt(i)) return false
  return true
}

/**
 * Does `w`, a streamed chunk whose first '<' is at `first`, hold no closing tag `close`, whole or
 * cut by its end? What findClose(w, 0, close, false) === ~w.length says, from the '<' the caller
 * already found (takesWhole).
 */
export function closeFree(w: string, first: number, close: string): boolean {
  // a long window is findClose's name search's to decide
  return w.length < 256 && findCloseShort(w, 0, close, false, first) === ~w.length
}

/** findClose in a short window: each '<' looked at, from `first` (the first '<' at or after `p`). */
function findCloseShort(w: string, p: number, close: string, ended: boolean, first = w.indexOf('<', p)): number {
  const n = w.length
  for (let l = first; l >= 0; l = w.indexOf('<', l + 1)) {
    // most '<' in a value start no closing tag: one look at the '/' rejects them
    if (l + 1 < n && w.charCodeAt(l + 1) !== 47) continue
    if (w.startsWith(close, l)) return l
    if (!ended && l > n - close.length && isPrefixAt(close, w, l)) return ~l
  }
  return ~n
}

/**
 * How findClose divides a long value between its two searches (the defaults; tests pass smaller
 * ones, so that every boundary between the two is met in short texts).
 * @internal
 */
export interface CloseSearch {
  /** The first this many characters are searched by name, ... */
  head: number
  /** ... the rest in windows of this many characters, ... */
  window: number
  /** ... each by name if its first this many characters ... */
  sample: number
  /**
   * ... hold this many '/' or more and as many of the name anchor's first letter, else by the
   * anchor whose first character is the rarer there.
   */
  dense: number
}

/** The defaults of {@link CloseSearch}. @internal */
export const CLOSE_SEARCH: CloseSearch = { head: 32 * 1024, window: 16 * 1024, sample: 512, dense: 12 }

/**
 * Letters from the rarest to the most common in English prose and in code, by rank: a fixed
 * guess, as the searches below take, per window, whichever anchor's first character its sample
 * shows rarer, so a poor guess costs speed, never correctness.
 */
const RARITY = 'zqjxkvbwygfpmhudclsrnoiate'
const RANK = new Uint8Array(128).fill(12) // digits, '_', '-' and the like: mid-table
for (let i = 0; i < RARITY.length; i++) {
  RANK[RARITY.charCodeAt(i)] = i
  RANK[RARITY.charCodeAt(i) - 32] = i // upper case as its lower case
}
const rank = (c: number): number => (c < 128 ? RANK[c]! : 12)

/**
 * Where in `name` its anchor starts: at its rarest letter (by RARITY), with at least three
 * characters (or the whole name) from there; the anchor is the name from there, at most six
 * characters. V8 searches a pattern of fewer than seven characters by a memchr of its first
 * character and a compare, several times faster than its skip search of a longer one when that
 * character is rare (over the realistic 2 MB message, `king` in 176 us against 864 for
 * `</thinking>`, on the project's machine).
 * @internal
 */
export function anchorAt(name: string): number {
  let best = 0
  for (let i = 1; name.length - i >= 3; i++) if (rank(name.charCodeAt(i)) < rank(name.charCodeAt(best))) best = i
  return best
}

/** How many times `ch` occurs in `s`, counting up to `most`. @internal */
export function countUpTo(s: string, ch: string, most: number): number {
  let k = 0
  for (let i = s.indexOf(ch); i >= 0 && k < most; i = s.indexOf(ch, i + 1)) k++
  return k
}

/**
 * The closing tag `close` at or after `p`: returns its index, or ~cut when there is none, where
 * `cut` is the window's end or the start of a cut closing tag (unless the input has `ended`).
 *
 * A long value is searched in three ways (measured on the project's machine). By name
 * (findCloseByName): fastest on a short value (without it a 10 KB message's parse took 10%
 * longer), so the first `head` characters go that way. The rest goes in windows, each by one of
 * two anchors, which V8 finds by a scan for their first character and a compare, in native code
 * (findCloseByAnchor): `/conte` of `</content>`, or the name from its rarest letter (`king` of
 * `</thinking>`, `conten` of content), whichever's first character the window's first
 * characters show the rarer; where both are dense (a restart of that scan at each costs more),
 * by name. On the realistic message's code body the '/' anchor is about 2.5x faster than the
 * name; on a JSX body, where '/' is dense, the letter anchor about 2x. Each window is searched
 * once, in order, so the first closing tag is found and the work is linear.
 */
export function findClose(w: string, p: number, close: string, ended: boolean, nameRe: RegExp, o: CloseSearch = CLOSE_SEARCH): number {
  const n = w.length
  // in a streamed chunk the few '<' are checked directly; indexOf of a whole tag pays a
  // setup cost per call that only long texts repay
  if (n - p < 256) return findCloseShort(w, p, close, ended)
  // a closing tag at or after p has its name at p + 2 or later
  let from = Math.min(n, p + 2 + o.head)
  let found = findCloseByName(w, p + 2, from, close, nameRe)
  if (found >= 0) return found
  const slash = close.slice(1, 7)
  const at = anchorAt(close.slice(2, close.length - 1))
  const letters = close.slice(2 + at, 8 + at)
  const lead = letters.slice(0, 1)
  while (found < 0 && from < n) {
    const to = Math.min(n, from + o.window)
    const sample = w.slice(from, from + o.sample)
    const b = countUpTo(sample, '/', o.dense)
    const a = countUpTo(sample, lead, o.dense)
    if (a >= o.dense && b >= o.dense) found = findCloseByName(w, from, to, close, nameRe)
    else found = b <= a ? findCloseByAnchor(w, from, to, close, slash, 1, nameRe) : findCloseByAnchor(w, from, to, close, letters, 2 + at, nameRe)
    from = to
  }
  if (found >= 0) return found
  // a cut closing tag can only start among the last close.length - 1 characters
  if (!ended) {
    for (let l = w.indexOf('<', Math.max(p, n - close.length + 1)); l >= 0; l = w.indexOf('<', l + 1)) {
      if (close.startsWith(w.slice(l))) return ~l
    }
  }
  return ~n
}

/**
 * The first closing tag `close` whose name starts in [from, to) in `w`, or -1, found by
 * `anchor`, which starts `off` characters into the tag: each hit is checked by a compare. The
 * anchors of such tags start in [from - 2 + off, to - 2 + off), searched in a slice that ends
 * there. Should hits come closer than every 32 characters on average (a text full of the
 * anchor), the rest of the range goes to the search by name, where a hit costs less.
 */
function findCloseByAnchor(w: string, from: number, to: number, close: string, anchor: string, off: number, nameRe: RegExp): number {
  const lo = from - 2 + off
  const s = w.slice(lo, Math.min(w.length, to - 2 + off + anchor.length - 1))
  const most = 16 + ((to - from) >> 5)
  let hits = 0
  for (let k = s.indexOf(anchor); k >= 0; k = s.indexOf(anchor, k + 1)) {
    const t = lo + k - off // where the tag would start
    if (w.startsWith(close, t)) return t
    if (++hits > most) return findCloseByName(w, t + 3, to, close, nameRe)
  }
  return -1
}

/**
 * The first closing tag `close` whose name starts in [from, to) in `w`, or -1: `nameRe` is the
 * lenient closing tag's search (the name, at most LENIENT_SLACK blanks, '>'), a superset of
 * `close` found by its name, which V8 runs with a skip table; a hit is the closing tag when `</`
 * precedes it and it has no blanks (hits cannot overlap one: a name holds no '>'). It runs on a
 * slice (a view of a flat string) that ends where a name starting before `to` ends, so that it
 * stops there.
 */
function findCloseByName(w: string, from: number, to: number, close: string, nameRe: RegExp): number {
  const m = close.length - 2
  const end = Math.min(w.length, to + m + LENIENT_SLACK)
  const s = from === 0 && end === w.length ? w : w.slice(from, end)
  nameRe.lastIndex = 0
  for (let h = nameRe.exec(s); h !== null; h = nameRe.exec(s)) {
    const name = from + h.index
    if (name >= to) return -1
    const at = name - 2
    if (h[0].length === m && w.charCodeAt(at) === 60 && w.charCodeAt(at + 1) === 47) return at
  }
  return -1
}
