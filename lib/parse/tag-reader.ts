/**
 * Text and tool mode when `lenientTags` or `diagnostics` is on, and the tag reading of the
 * `codeFences` scanner: every `<` candidate is read whole, its name normalised (lenientTags) and
 * judged (diagnostics). The engine makes one only for these options; the exact profile never
 * enters this code.
 * @internal
 * @module
 */
import type { Engine } from './engine.js'
import { DENSE_GAP, DENSE_RUN, exactNameAt, nextExactTag, pairKey, type TagSet } from './tags.js'
import { LENIENT_SLACK, NONE, PARTIAL, lenientCut, lenientName } from './lenient.js'

/** The first `anchor` in `w` between `start` and `end` (exclusive: the whole anchor inside), or -1. */
function find(w: string, anchor: string, start: number, end: number): number {
  if (end >= w.length) return w.indexOf(anchor, start)
  if (end - start < anchor.length) return -1
  // a slice of a flat string is a view (no copy) for all but the shortest ranges
  const i = w.slice(start, end).indexOf(anchor)
  return i < 0 ? -1 : start + i
}

/** Below this many characters from the start of the search, the tag regex is used. */
const SHORT = 256

// character codes
const LT = 60 // '<'
const GT = 62 // '>'
const SLASH = 47
const SPACE = 32
const TAB = 9

/** The anchors' state before a parse first needs it (never written: its length is 0). */
const NO_ANCHORS: number[] = []

/**
 * Is there, at `j` in `w`, a name of `tags` listed under pair `key` (TagSet.pairIndex), then at
 * most `maxBlanks` blanks and '>'? What the lenient tag regex matches after a '<' and its blanks,
 * by startsWith of the one or two names of the pair rather than a sticky search.
 */
function lenientNameEnds(tags: TagSet, w: string, j: number, key: number, maxBlanks: number): boolean {
  const k = tags.pairIndex[key]!
  if (k === 0) return false
  const names = tags.byPairName[k - 1]!
  for (let x = 0; x < names.length; x++) {
    const name = names[x]!
    if (!w.startsWith(name, j)) continue
    let e = j + name.length
    let c = w.charCodeAt(e)
    for (const lim = e + maxBlanks; (c === SPACE || c === TAB) && e < lim;) c = w.charCodeAt(++e)
    if (c === GT) return true
  }
  return false
}

/** Longest unknown tag name that diagnostics wait for. */
const UNKNOWN_MAX = 48

export class TagReader {
  /** The longest tag candidate after a '<' in text and in tool mode (fixed by the options). */
  private readonly textMax: number
  private readonly toolMax: number
  /**
   * The longest text tag, '<' to '>' exclusive, whatever diagnostics say: they read longer
   * candidates (textMax) to report unknown names, but a tag is a tag with or without them.
   */
  private readonly textTagMax: number

  constructor(
    private readonly lenient: boolean,
    private readonly diagnostics: boolean,
    private readonly textTags: TagSet,
    private readonly toolTags: TagSet,
  ) {
    // text mode, with diagnostics, also waits for unknown tool-like names to complete, so that
    // reporting them does not depend on where chunks were cut
    const slack = 1 + (lenient ? LENIENT_SLACK : 0)
    this.textTagMax = textTags.maxInner + slack
    this.textMax = Math.max(textTags.maxInner, diagnostics ? UNKNOWN_MAX : 0) + slack
    this.toolMax = toolTags.maxInner + slack
  }

  /**
   * Looks for a tag starting at the `<` at `s`: returns the index of its `>`, NONE if no tag can
   * start there, PARTIAL if the window ends while it still could.
   */
  tagEnd(w: string, s: number, tags: TagSet, ended: boolean): number {
    const n = w.length
    const text = tags === this.textTags
    const lim = Math.min(n, s + (text ? this.textMax : this.toolMax) + 1)
    let blank = false
    for (let j = s + 1; j < lim; j++) {
      const c = w.charCodeAt(j)
      if (c === GT) {
        this.blank = blank
        return j
      }
      if (c === LT) return NONE
      if (c === SPACE || c === TAB) blank = true
    }
    if (lim === n && !ended) {
      // with diagnostics, text mode waits for any cut candidate: an unknown name is reported when
      // within two edits of a tool's (`</read_file>`, `< read_file >` included), and whether it
      // is must not depend on where the chunk ended
      if (text && this.diagnostics) return PARTIAL
      if (this.cut(w.slice(s + 1), tags, false)) return PARTIAL
    }
    return NONE
  }

  /**
   * The next '<' at or after `from` that a scanner must read, or the window's end. With
   * diagnostics every '<' (an unknown name is reported); without, in text only where the tag
   * regex (a superset of what tagEnd accepts) matches, in a tool where it may (scanTool reads
   * each whole anyway), or a '<' among the window's last characters that a tag cut by its end
   * may start at: the '<' of prose are passed at a look each (nextLenient, nextExactTag).
   */
  nextCandidate(w: string, from: number, tags: TagSet, ended: boolean): number {
    const n = w.length
    if (this.diagnostics) {
      const i = w.indexOf('<', from)
      return i < 0 ? n : i
    }
    const t = this.lenient ? this.nextLenient(tags, w, from) : nextExactTag(tags, w, from)
    if (t >= 0) return t
    if (ended) return n
    // only the last '<' of the window can start a cut candidate (tagEnd decides whether it does)
    let s = n
    for (let k = w.indexOf('<', Math.max(from, n - (tags === this.textTags ? this.textMax : this.toolMax) - 1)); k >= 0; k = w.indexOf('<', k + 1)) s = k
    return s
  }

  /**
   * The first '<' at or after `from` where the lenient tag regex of `tags` matches, or -1. As the
   * exact profile's nextExactTag: sparse '<' are found by indexOf, and each is looked at by the
   * two characters after its blanks (the first two of a name, a one-character name and a blank,
   * or '/' and the first of a name after its blanks) in the dialect's pair table, the sticky
   * regex confirming a hit. In a '<'-dense run the rest is found by one search: in text, from
   * the names' anchors, which never stop at prose's '<' (on '<'-dense prose the lenient regex,
   * stopping at each, costs about 2x the exact one), unless the window is short, where an
   * indexOf per anchor costs more than the regex's few stops; in a tool, by the regex.
   */
  private nextLenient(tags: TagSet, w: string, from: number): number {
    const pairs = tags.pairIndex
    // the regex's bound on each run of blanks (TagSet.compile): past it no tag starts at the '<'
    const maxBlanks = tags.maxInner + 65
    let run = from
    let dense = 0
    for (let i = w.indexOf('<', from); i >= 0; i = w.indexOf('<', i + 1)) {
      // blanks hold no '<': each is walked over for one '<' at most
      let j = i + 1
      let c = w.charCodeAt(j)
      for (const lim = j + maxBlanks; (c === SPACE || c === TAB) && j < lim;) c = w.charCodeAt(++j)
      let d = w.charCodeAt(j + 1)
      if (c === SLASH) {
        // a closing tag: '/', blanks, then the name's first character
        let k = j + 1
        d = w.charCodeAt(k)
        for (const lim = k + maxBlanks; (d === SPACE || d === TAB) && k < lim;) d = w.charCodeAt(++k)
      }
      if (pairs[pairKey(c, d)] !== 0 || ((d === SPACE || d === TAB) && pairs[pairKey(c, GT)] !== 0)) {
        // in a tool the few '<' are all read whole by scanTool (tagEnd, the name), which judges
        // them as the regex would: a sticky match first would read each tag twice
        if (tags !== this.textTags) return i
        // the regex's match at i, by hand: a name of the pair, at most maxBlanks blanks, '>'
        if (lenientNameEnds(tags, w, j, pairKey(c, d), maxBlanks)) return i
        if ((d === SPACE || d === TAB) && lenientNameEnds(tags, w, j, pairKey(c, GT), maxBlanks)) return i
      }
      if (i - run < DENSE_GAP * (dense + 1)) {
        if (++dense >= DENSE_RUN) {
          if (tags === this.textTags && tags.anchors.length > 0 && w.length - i > SHORT) return this.anchored(w, i + 1)
          const re = tags.lenient
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

  /**
   * Per text anchor (TagSet.anchors): the candidate its hits gave and not yet passed (-1: none
   * kept), its next hit not yet read (the window's length: none; -1: not searched), and its last
   * hit read. Hits are read only as far as the nearest candidate needs, each once per window.
   */
  private cand: number[] = NO_ANCHORS
  private next: number[] = NO_ANCHORS
  private lastHit: number[] = NO_ANCHORS
  /** Per anchor, where its search for hits ended: it has no hit between its last one and here. */
  private seen: number[] = NO_ANCHORS
  private lastFrom = 0

  /** The engine reads a new window: what was kept is of the last one (cleared on first use). */
  newWindow(): void {
    this.stale = true
  }

  private stale = true

  private clear(): void {
    const k = this.textTags.anchors.length
    if (this.cand.length !== k) {
      // made on first use: most parses never meet a '<'-dense run, and a parse's fixed cost counts
      // on short messages
      this.cand = new Array<number>(k)
      this.next = new Array<number>(k)
      this.lastHit = new Array<number>(k)
      this.seen = new Array<number>(k)
    }
    this.cand.fill(-1)
    this.next.fill(-1)
    this.lastHit.fill(-1)
    this.seen.fill(0)
    this.lastFrom = 0
    this.stale = false
  }

  /**
   * The first '<' at or after `from` where the text tag regex matches (-1: none), found from
   * the names' anchors; prose's '<' are never visited (on '<'-dense prose the lenient regex,
   * stopping at each, costs about 2x the exact one).
   */
  private anchored(w: string, from: number): number {
    const n = w.length
    // a fence scanner reads again from a held tag: what was read past it is dropped
    if (this.stale || from < this.lastFrom) this.clear()
    this.lastFrom = from
    const cand = this.cand
    let best = n
    for (let a = 0; a < cand.length; a++) {
      if (cand[a]! < from) cand[a] = -1
      else if (cand[a]! < best) best = cand[a]!
    }
    for (let a = 0; a < cand.length; a++) {
      if (cand[a]! >= 0) continue
      const s = this.scanAnchor(w, from, a, best)
      if (s >= 0 && s < best) best = s
    }
    return best === n ? -1 : best
  }

  /**
   * Reads the hits of anchor `a` from `from` on, until one gives a candidate (kept and returned)
   * or they are too far to give one before `limit` (-1). A name found by the anchor starts at
   * one of its offsets before a hit (TagSet.anchorOffsets), after a '<' and blanks; the sticky
   * tag regex confirms the candidate.
   */
  private scanAnchor(w: string, from: number, a: number, limit: number): number {
    const n = w.length
    const tags = this.textTags
    const anchor = tags.anchors[a]!
    const offsets = tags.anchorOffsets[a]!
    const re = this.lenient ? tags.lenientAt : tags.exactAt
    const maxBlanks = tags.maxInner + 65 // the regex's bound (TagSet.compile)
    const maxOff = tags.maxInner
    // a hit past `far` gives no candidate before `limit`: the search for hits ends there, so that
    // a rare anchor is not looked for through a long tool body that text mode never reads
    const far = limit >= n ? n : limit + maxOff + maxBlanks + 1
    const end = Math.min(n, far + anchor.length)
    let j = this.next[a]!
    if (j < from) {
      const start = Math.max(from, this.seen[a]!)
      j = start > far ? -1 : find(w, anchor, start, end)
      if (j < 0) this.seen[a] = Math.max(this.seen[a]!, end - anchor.length + 1)
    }
    // the look-back stops before `from` (a tag there is not asked for) and at the last hit: a
    // name's first anchor is the hit at its offset, so no earlier hit lies inside the name, and
    // every character is read back a bounded number of times
    let stop = Math.max(this.lastHit[a]!, from - 1)
    let found = -1
    while (j >= 0 && j <= far) {
      const last = stop
      stop = j
      const hit = j
      j = find(w, anchor, hit + 1, end)
      if (j < 0) this.seen[a] = Math.max(this.seen[a]!, end - anchor.length + 1)
      // at one look per offset most hits are out: no '<' or blank where a name would start
      let o = 0
      for (; o < offsets.length; o++) {
        const k = hit - offsets[o]! - 1
        if (k <= last) continue
        const c = w.charCodeAt(k)
        if (c === LT || c === SPACE || c === TAB) break
      }
      if (o === offsets.length) continue
      // the run of name characters that holds the hit must start at one of the offsets
      let k = hit - 1
      let c = 0
      for (; k > last && hit - k <= maxOff; k--) {
        c = w.charCodeAt(k)
        if (c === LT || c === SPACE || c === TAB) break
      }
      if (k <= last || !offsets.includes(hit - k - 1)) continue
      for (let b = 0; b < maxBlanks && k > last && (c === SPACE || c === TAB); b++) c = w.charCodeAt(--k)
      if (k <= last || c !== LT) continue
      re.lastIndex = k
      if (re.test(w)) {
        found = k
        break
      }
    }
    this.next[a] = j
    this.lastHit[a] = stop
    this.cand[a] = found
    return found
  }

  /** See Engine.cutTag. */
  cut(raw: string, tags: TagSet, named: boolean): boolean {
    // its '>' still to come, a candidate this long is past a tag's limit (tagEnd), whatever
    // diagnostics wait for
    if (raw.length >= (tags === this.textTags ? this.textTagMax : this.toolMax)) return false
    if (this.lenient) return lenientCut(raw, tags, named)
    return (!named || raw.length > 0) && tags.prefixes.has(raw)
  }

  /** Whether the candidate whose '>' tagEnd last returned has blanks inside its brackets. */
  private blank = false

  /**
   * The name inside the brackets of the whole candidate `w[s..end]` that tagEnd just read;
   * null if it is no tag. Blanks were noted by tagEnd: most tags have none, and are their name.
   */
  nameAt(w: string, s: number, end: number): string | null {
    const raw = w.slice(s + 1, end)
    return this.lenient && this.blank ? lenientName(raw) : raw
  }

  /**
   * Does the whole candidate `w[s..end]`, whose inside is `name`, open a text tag? Otherwise, with
   * diagnostics, it is judged as an unknown name (a known one too long for a tag is not).
   */
  textTag(e: Engine, name: string | null, s: number, end: number, offset: number, report: boolean): boolean {
    if (name === null) return false
    if (this.textTags.names.has(name)) {
      if (end - s <= this.textTagMax) return true
    } else if (report && e.diag !== null) e.diag.checkUnknown(name, offset)
    return false
  }

  /** Text mode: returns where the next mode starts, or ~cut when the window is used up. */
  scanText(e: Engine, w: string, p: number, base: number): number {
    const tags = this.textTags
    const n = w.length
    let from = p
    for (;;) {
      const s = this.nextCandidate(w, from, tags, e.ended)
      if (s === n) {
        e.text.push(p === 0 ? w : w.slice(p))
        return ~n
      }
      const end = this.tagEnd(w, s, tags, e.ended)
      if (end === PARTIAL) {
        e.text.push(w.slice(p, s))
        return ~s
      }
      if (end === NONE) {
        from = s + 1
        continue
      }
      const name = this.nameAt(w, s, end)
      if (this.textTag(e, name, s, end, base + s, true)) {
        e.text.push(w.slice(p, s))
        e.openTag(name!)
        return end + 1
      }
      from = end + 1
    }
  }

  /** Tool mode: param openings and the tool's closing tag; everything else is dropped (and reported). */
  scanTool(e: Engine, w: string, p: number, base: number): number {
    const tool = e.tool!
    const diag = e.diag
    const n = w.length
    let from = p
    for (;;) {
      // with diagnostics every '<' (the dropped text is reported), else only tag candidates
      const s = this.nextCandidate(w, from, this.toolTags, e.ended)
      if (s === n) {
        if (diag !== null) diag.ignored(w, from, n, base)
        return ~n
      }
      if (diag !== null) diag.ignored(w, from, s, base)
      // an exact tag of the set (most are) is read at once from the pair table; tagEnd would
      // find its '>' within its limit, and its name is the set's own string
      let name = exactNameAt(this.toolTags, w, s)
      let end: number
      if (name !== null) end = s + name.length + 1
      else {
        end = this.tagEnd(w, s, this.toolTags, e.ended)
        if (end === PARTIAL) return ~s
        if (end === NONE) {
          if (diag !== null) diag.ignored(w, s, s + 1, base)
          from = s + 1
          continue
        }
        name = this.nameAt(w, s, end)
      }
      if (name !== null && e.params.has(name)) {
        if (diag !== null) diag.flushIgnored(tool.name)
        e.openParam(name, w, end + 1)
        return end + 1
      }
      if (name === tool.close) {
        if (diag !== null) diag.flushIgnored(tool.name)
        e.closeTool(w, s)
        return end + 1
      }
      if (diag !== null) diag.ignored(w, s, end + 1, base)
      from = end + 1
    }
  }
}
