/**
 * The exact scanners' searches over a window: the closing tag of a value, and a tag candidate cut
 * by the window's end. Plain functions over their arguments and the dialect's immutable tables,
 * not methods reading the engine's fields, and the robust options never run through them: each
 * stays specialised to its profile.
 * @internal
 * @module
 */

/**
 * A tag candidate cut by the end of `w`: the last '<' at or after `from`, if it is among the last
 * `max` + 1 characters and what follows it is a prefix of a tag in `prefixes`; its index, or -1.
 * Only there can a tag cut by the end of the window start.
 */
export function cutAt(w: string, from: number, prefixes: Set<string>, max: number): number {
  // one search from the end, not one per '<' in the last characters
  const s = w.lastIndexOf('<')
  return s >= from && s >= w.length - max - 1 && prefixes.has(w.slice(s + 1)) ? s : -1
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
 * The closing tag `close` at or after `p`: returns its index, or ~cut when there is none, where
 * `cut` is the window's end or the start of a cut closing tag (unless the input has `ended`).
 */
export function findClose(w: string, p: number, close: string, ended: boolean, nameRe: RegExp): number {
  const n = w.length
  // in a streamed chunk the few '<' are checked directly; indexOf of a whole tag pays a
  // setup cost per call that only long texts repay
  if (n - p < 256) return findCloseShort(w, p, close, ended)
  // `nameRe` is the lenient closing tag's search (the name, at most LENIENT_SLACK blanks, '>'),
  // a superset of `close` found by its name: V8 runs that bounded pattern with a skip table,
  // 1.3-2.5x faster than indexOf of the whole closing tag in a long code body (the same pattern
  // without the bounded blanks, or `</name>` itself, is not faster). A hit is the closing tag
  // when `</` precedes it and it has no blanks; hits cannot overlap one (a name holds no '>').
  const m = close.length - 2
  nameRe.lastIndex = p + 2
  for (let h = nameRe.exec(w); h !== null; h = nameRe.exec(w)) {
    const i = h.index - 2
    if (h[0].length === m && w.charCodeAt(i) === 60 && w.charCodeAt(i + 1) === 47) return i
  }
  // a cut closing tag can only start among the last close.length - 1 characters
  if (!ended) {
    for (let l = w.indexOf('<', Math.max(p, n - close.length + 1)); l >= 0; l = w.indexOf('<', l + 1)) {
      if (close.startsWith(w.slice(l))) return ~l
    }
  }
  return ~n
}
