/**
 * The `lenientTags` option: reading tags with blanks inside their brackets (`< read_file >`,
 * `</ path >`), entered by the engine only when the option is on, so the exact path never runs it.
 * @internal
 * @module
 */
import type { Field } from './field.js'
import { LENIENT_SLACK, type TagSet } from './tags.js'
import { CLOSE_SEARCH, anchorAt, countUpTo, type CloseSearch } from './exact-scan.js'

// character codes
const LT = 60 // '<'
const GT = 62 // '>'
const SPACE = 32
const TAB = 9
const SLASH = 47

/** A scanner's answer at a `<` when it is not the index of a tag's `>`: no tag can start there. */
export const NONE = -1
/** The window ends while a tag could still start there. */
export const PARTIAL = -2

export { LENIENT_SLACK }

/** Lenient white space: spaces and tabs, as a tag never spans lines. */
export const isBlank = (c: number): boolean => c === SPACE || c === TAB

/** `\s` of a `u` regex: what can never be part of a tag name. */
function isSpace(c: number): boolean {
  if (c <= 32) return c === SPACE || (c >= 9 && c <= 13)
  if (c < 0xa0) return false
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 ||
    c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
}

/**
 * The inside of a lenient tag: blanks, an optional '/', blanks, a name (no white space, '<',
 * '>' or '/'), blanks; lenient white space is spaces and tabs, as a tag never spans lines.
 * Returns slash + name, or null when `raw` has another shape. By hand, in one pass: the
 * equivalent regex (`^[ \t]*(\/?)[ \t]*([^\s<>/]*)[ \t]*$`) backtracks cubically on a run of
 * blanks followed by two words, and a streamed window ending in one ran it on every chunk.
 * @group Parsing
 */
export function lenientInner(raw: string): string | null {
  const n = raw.length
  let i = 0
  while (i < n && isBlank(raw.charCodeAt(i))) i++
  const slash = i < n && raw.charCodeAt(i) === SLASH
  if (slash) {
    i++
    while (i < n && isBlank(raw.charCodeAt(i))) i++
  }
  const from = i
  for (; i < n; i++) {
    const c = raw.charCodeAt(i)
    if (c === LT || c === GT || c === SLASH || isSpace(c)) break
  }
  const to = i
  while (i < n && isBlank(raw.charCodeAt(i))) i++
  if (i < n) return null
  const name = from === 0 && to === n ? raw : raw.slice(from, to)
  return slash ? '/' + name : name
}

/** The name inside the brackets of a whole lenient tag, normalised; null if it is no tag. */
export function lenientName(raw: string): string | null {
  // without blanks it is a plain tag (most are)
  if (raw.indexOf(' ') < 0 && raw.indexOf('\t') < 0) return raw
  // `< / name >`: white space around the slash and the name, never inside the name
  const name = lenientInner(raw)
  return name === null || name.length === 0 || name === '/' ? null : name
}

/**
 * Could `raw`, the text after a '<' cut by the end of the input, still become a lenient tag of
 * `tags`? A name already followed by a blank can only be completed by '>', so it must be whole;
 * otherwise it may grow. `named` asks for a name of at least one character.
 */
export function lenientCut(raw: string, tags: TagSet, named: boolean): boolean {
  const name = lenientInner(raw)
  if (name === null) return false
  // a name (not just the slash) followed by a blank: only '>' can complete it
  const some = name.length > (name.charCodeAt(0) === SLASH ? 1 : 0)
  if (some && isBlank(raw.charCodeAt(raw.length - 1))) return tags.names.has(name)
  return (!named || name.length > 0) && tags.prefixes.has(name)
}

/**
 * Lenient closing tag `</ name >` at `s` (`close` is the exact `</name>`, whose '/' and name are
 * compared): index of its '>', NONE or PARTIAL.
 */
function closeEnd(w: string, s: number, close: string, ended: boolean): number {
  // by hand rather than a regex: inside a long value every '<' comes through here
  const n = w.length
  const lim = Math.min(n, s + close.length + LENIENT_SLACK)
  let j = s + 1
  while (j < lim && isBlank(w.charCodeAt(j))) j++
  if (j < lim && w.charCodeAt(j) === SLASH) {
    j++
    while (j < lim && isBlank(w.charCodeAt(j))) j++
    // the name: close[2 .. length - 1)
    const to = close.length - 1
    let k = 2
    while (k < to && j < lim && w.charCodeAt(j) === close.charCodeAt(k)) {
      k++
      j++
    }
    if (k === to) {
      while (j < lim && isBlank(w.charCodeAt(j))) j++
      if (j < lim) return w.charCodeAt(j) === GT ? j : NONE
    } else if (j < lim) return NONE
  } else if (j < lim) return NONE
  // the window ended with everything so far matching: the tag may still come
  return j === n && lim === n && !ended ? PARTIAL : NONE
}

/**
 * `name`, then the blanks a lenient closing tag allows, then '>' (global: set lastIndex), made
 * once per name in `cache`, the dialect's (Tables.closeNames: its params and reasoning tags only,
 * and it goes with the dialect).
 */
export function closeNameRegex(cache: Map<string, RegExp>, name: string): RegExp {
  let re = cache.get(name)
  if (re === undefined) {
    // at most LENIENT_SLACK blanks in the whole tag (closeEnd's limit)
    re = new RegExp(`${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[ \\t]{0,${LENIENT_SLACK}}>`, 'g')
    cache.set(name, re)
  }
  return re
}

/**
 * Where the engine's lenient close scan leaves the start of the closing tag it found (the
 * engine owns the field, and reads it when a greedy param closes).
 */
export interface CloseAt {
  closeAt: number
}

/**
 * lenientClose's stretches: findClose's, where `dense` bounds the anchor's first character in a
 * window's sample, and `slashes` the '/' (a '/' costs a call from JavaScript, sooner dense).
 * @internal
 */
export interface LenientSearch extends CloseSearch {
  /** A window whose sample holds fewer '/' than this may be searched by each '/'. */
  slashes: number
}

/** The defaults of {@link LenientSearch}. @internal */
export const LENIENT_SEARCH: LenientSearch = { ...CLOSE_SEARCH, slashes: 8 }

/**
 * The '<' of the first lenient closing tag `close` at or after `p` in a long value, or -1: as the
 * exact search (findClose), the first stretch by name, then window by window, each by what its
 * sample shows rarer, the name's anchor (see anchorAt) or '/', and by name where both are
 * dense. The anchor took the robust parse of the realistic messages from about the exact
 * profile's time to a fraction of it (a stray `<thinking>` in prose opens a reasoning block,
 * whose closing tag is then searched through the whole rest); '/' serves names whose letters
 * are all common in the text (`content` in code). Each window takes the tags whose name starts
 * in it, in order, so the first one is found and the work is linear.
 */
export function lenientClose(w: string, p: number, close: string, ended: boolean, re: RegExp, o: LenientSearch = LENIENT_SEARCH): number {
  const n = w.length
  let from = Math.min(n, p + 2 + o.head)
  let j = lenientByName(w, p, p, from, close, ended, re)
  if (j >= 0 || from >= n) return j
  const name = close.slice(2, close.length - 1)
  const at = anchorAt(name)
  const anchor = name.slice(at, at + 6)
  const lead = anchor.slice(0, 1)
  while (j < 0 && from < n) {
    const to = Math.min(n, from + o.window)
    const sample = w.slice(from, from + o.sample)
    const a = countUpTo(sample, lead, o.dense)
    const b = countUpTo(sample, '/', o.slashes)
    // on a tie the anchor: here each '/' costs a call from JavaScript, where findClose's '/'
    // anchor is searched natively (so it takes '/' on a tie)
    if (a < o.dense && (a <= b || b >= o.slashes)) j = lenientByAnchor(w, p, from, to, close, ended, re, name, anchor, at)
    else if (b < o.slashes) j = lenientBySlash(w, p, from, to, close, ended, re)
    else j = lenientByName(w, p, from, to, close, ended, re)
    from = to
  }
  return j
}

/** Back from `k` over blanks to a '<' at or after `p`: its index, or -1. */
function ltBefore(w: string, p: number, k: number): number {
  let j = k - 1
  while (j >= p && isBlank(w.charCodeAt(j))) j--
  return j >= p && w.charCodeAt(j) === LT ? j : -1
}

/**
 * The '<' of the first lenient closing tag whose name starts in [from, to), found by name: `re`
 * (the name, blanks, '>'), which V8 runs with Boyer-Moore skips, on a slice that ends where such
 * a tag ends; back from each match over blanks, '/', blanks to a '<', which closeEnd alone
 * confirms (and with it the length limit). Tags hold no '<', so the first confirmed tag by name
 * is the first one; and a match ends at a '>' that no other closing tag can share.
 */
function lenientByName(w: string, p: number, from: number, to: number, close: string, ended: boolean, re: RegExp): number {
  const end = Math.min(w.length, to + close.length + LENIENT_SLACK)
  const s = from === 0 && end === w.length ? w : w.slice(from, end)
  re.lastIndex = 0
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    const name = from + m.index
    if (name >= to) return -1
    let k = name - 1
    while (k >= p && isBlank(w.charCodeAt(k))) k--
    if (k < p || w.charCodeAt(k) !== SLASH) continue
    const j = ltBefore(w, p, k)
    if (j >= 0 && closeEnd(w, j, close, ended) >= 0) return j
  }
  return -1
}

/**
 * The same, found by the name's anchor (`anchor`, from `at` in `name`): each hit whose name is
 * whole goes back over blanks, '/', blanks to a '<', which closeEnd confirms. The anchors of
 * names starting in [from, to) start in [from + at, to + at), searched in a slice that ends
 * there; should hits come closer than every 32 characters on average, the rest of the range
 * goes to lenientByName.
 */
function lenientByAnchor(w: string, p: number, from: number, to: number, close: string, ended: boolean, re: RegExp, name: string, anchor: string, at: number): number {
  const s = w.slice(from + at, Math.min(w.length, to + at + anchor.length - 1))
  const most = 16 + ((to - from) >> 5)
  let hits = 0
  for (let k = s.indexOf(anchor); k >= 0; k = s.indexOf(anchor, k + 1)) {
    const q = from + k // where the name would start
    if (w.startsWith(name, q)) {
      let b = q - 1
      while (b >= p && isBlank(w.charCodeAt(b))) b--
      if (b >= p && w.charCodeAt(b) === SLASH) {
        const j = ltBefore(w, p, b)
        if (j >= 0 && closeEnd(w, j, close, ended) >= 0) return j
      }
    }
    if (++hits > most) return lenientByName(w, p, q + 1, to, close, ended, re)
  }
  return -1
}

/**
 * The same, found by each '/' (indexOf, on a slice from the first '/' whose name can start in
 * the range): the name after it and its blanks, then the '<' before it, then closeEnd. Should
 * '/' come closer than every 32 characters on average, the rest goes to lenientByName.
 */
function lenientBySlash(w: string, p: number, from: number, to: number, close: string, ended: boolean, re: RegExp): number {
  const lo = Math.max(p, from - 1 - LENIENT_SLACK)
  const s = w.slice(lo, to)
  const name = close.slice(2, close.length - 1)
  const first = name.charCodeAt(0)
  const most = 16 + ((to - from) >> 5)
  let hits = 0
  for (let k = s.indexOf('/'); k >= 0; k = s.indexOf('/', k + 1)) {
    const slash = lo + k
    let q = slash + 1
    while (q - slash <= LENIENT_SLACK && isBlank(w.charCodeAt(q))) q++
    if (q >= from && q < to && w.charCodeAt(q) === first && w.startsWith(name, q)) {
      const j = ltBefore(w, p, slash)
      if (j >= 0 && closeEnd(w, j, close, ended) >= 0) return j
    }
    if (++hits > most) return lenientByName(w, p, Math.max(from, slash + 1), to, close, ended, re)
  }
  return -1
}

/**
 * Does `w`, a streamed chunk whose first '<' is at `first`, hold no lenient closing tag
 * `close`, whole or cut by its end? What scanCloseLenient says by consuming the whole chunk,
 * from the '<' the caller already found (Engine.takesWhole): on the robust profile a third of
 * a code body's 16-byte chunks hold a '<', and this takes them without a scan of the window.
 */
export function lenientCloseFree(w: string, first: number, close: string): boolean {
  // a long window is lenientClose's to decide
  if (w.length >= 256) return false
  for (let s = first; s >= 0; s = w.indexOf('<', s + 1)) {
    // a '<' at the end may start the tag
    if (s + 1 === w.length) return false
    const c1 = w.charCodeAt(s + 1)
    if (c1 !== SLASH && !isBlank(c1)) continue
    if (closeEnd(w, s, close, false) !== NONE) return false
  }
  return true
}

/**
 * Inside a param or reasoning tag with `lenientTags`: only the matching closing tag, blanks
 * allowed, ends it (`re`: its name's closeNameRegex). Returns the index after it, or ~cut with
 * the value pushed up to cut (`base`: where `w` starts in the whole text, for `Field.pushAt`).
 */
export function scanCloseLenient(at: CloseAt, w: string, p: number, base: number, close: string, field: Field, ended: boolean, re: RegExp): number {
  // most values (a path, a command) hold no '<' before their closing tag, written exactly: the
  // first '<' settles them, without a search by name (its setup costs more than such a value)
  const first = w.indexOf('<', p)
  if (first < 0) {
    // no closing tag, and none cut by the end of the window
    field.pushAt(p === 0 ? w : w.slice(p), base + p)
    return ~w.length
  }
  if (w.startsWith(close, first)) {
    field.pushAt(w.slice(p, first), base + p)
    at.closeAt = first
    return first + close.length
  }
  if (w.length - p > 256) {
    const j = lenientClose(w, p, close, ended, re)
    if (j >= 0) {
      field.pushAt(w.slice(p, j), base + p)
      at.closeAt = j
      return closeEnd(w, j, close, ended) + 1
    }
  } else {
    // in a streamed chunk the few '<' are checked directly
    for (let s = first; s >= 0; s = w.indexOf('<', s + 1)) {
      const c1 = s + 1 < w.length ? w.charCodeAt(s + 1) : SLASH
      if (c1 !== SLASH && !isBlank(c1)) continue
      const j = closeEnd(w, s, close, ended)
      if (j >= 0) {
        field.pushAt(w.slice(p, s), base + p)
        at.closeAt = s
        return j + 1
      }
    }
  }
  // a tag cut by the end of the window starts within its longest length of the end, and has
  // no '<' after its own
  if (!ended) {
    let l = -1
    for (let k = w.indexOf('<', Math.max(p, w.length - close.length - LENIENT_SLACK)); k >= 0; k = w.indexOf('<', k + 1)) l = k
    if (l >= p && closeEnd(w, l, close, ended) === PARTIAL) {
      field.pushAt(w.slice(p, l), base + p)
      return ~l
    }
  }
  field.pushAt(p === 0 ? w : w.slice(p), base + p)
  return ~w.length
}
