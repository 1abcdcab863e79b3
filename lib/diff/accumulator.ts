/**
 * A mutable block array that diffs are applied to in place: for consumers that see every diff and
 * do not need a new array per diff (the CLI's `--final` and `--snapshots`, a server keeping the
 * state of a message).
 * @module
 */
import type { Block, BlockDiff } from '../types.js'
import { Snapshot } from '../present/snapshot.js'

/**
 * Applies diffs to a block array it owns, in place, at a cost proportional to each diff, whatever
 * the number of blocks: {@link applyDiff} copies the array (and the changed block) on every
 * diff, which makes a message of many blocks quadratic for a consumer that applies every diff.
 * Appends to one string are collected in a rope and joined when the blocks are read, so a long
 * run of appends (a big `write_to_file`) stays linear however often it is read.
 *
 * Every diff is checked as {@link applyDiff} checks it: a diff that does not fit throws a
 * {@link TagstreamError} with code `ERR_INVALID_DIFF` and changes nothing. Blocks from `add` and
 * `replace` diffs are copied, so the sender's objects are never modified.
 *
 * `blocks` is the live array, valid until the next `apply` or `reset`: read it, or serialize it,
 * but do not keep or modify it; {@link BlockAccumulator.snapshot} gives a copy to keep.
 * @example
 * ```ts
 * import { BlockAccumulator } from 'tagstream'
 * const acc = new BlockAccumulator()
 * acc.apply({ op: 'add', index: 0, block: { type: 'text', content: 'Hi', partial: true } })
 * acc.apply({ op: 'append', index: 0, path: 'content', text: ' there' })
 * acc.apply({ op: 'complete', index: 0 })
 * acc.json() // '[{"type":"text","content":"Hi there","partial":false}]', as JSON.stringify(acc.blocks)
 * acc.reset() // the next message
 * ```
 * @group Diffs
 */
export class BlockAccumulator {
  /** The blocks, with the open field's rope (shared with the Presenter's code). */
  private readonly snap: Snapshot = new Snapshot()
  /** JSON of each block as of the last `json()`; `undefined` where the block changed since. */
  private cache: (string | undefined)[] = []

  /**
   * @param initial - blocks to start from (checked and copied); none by default
   */
  constructor(initial: readonly Block[] = []) {
    for (const b of initial) this.apply({ op: 'add', index: this.snap.length, block: b })
  }

  /**
   * Applies one diff in place. Throws `ERR_INVALID_DIFF`, having changed nothing, when it does
   * not fit the blocks.
   * @param diff - the diff, from a BlockParser, a log or the network
   * @returns this accumulator, for chaining
   */
  apply(diff: BlockDiff): this {
    const snap: Snapshot = this.snap
    // the common case, growth of the last block's field, checked as checkDiff would, in place: an
    // index at the end, a string text, and `append` refuses a path that names no string field
    // of the block (each read once: a record may be any object)
    if (diff !== null && typeof diff === 'object' && diff.op === 'append') {
      const i = diff.index
      const text = diff.text
      if (i === snap.length - 1 && i >= 0 && typeof text === 'string' && snap.append(snap.live[i]!, diff.path, text)) {
        if (i < this.cache.length) this.cache[i] = undefined
        return this
      }
    }
    snap.check(diff)
    const cache = this.cache
    if (diff.op === 'truncate') {
      if (diff.length < cache.length) cache.length = diff.length
    } else if (diff.index < cache.length) cache[diff.index] = undefined // an add is past the end: nothing cached
    // a checked append always names a string field: `append` cannot refuse it
    if (diff.op !== 'append' || !snap.append(snap.live[diff.index]!, diff.path, diff.text)) snap.apply(diff)
    return this
  }

  /** The current blocks: the live array, valid until the next change (do not modify it). */
  get blocks(): readonly Block[] {
    return this.snap.blocks
  }

  /** How many blocks there are. */
  get length(): number {
    return this.snap.length
  }

  /**
   * `JSON.stringify(this.blocks)`, byte for byte, re-serializing only the blocks changed since the
   * last call: printing the whole array after every chunk (`--snapshots`) costs a copy of the
   * output per call, not a walk of every block. Keeps one JSON string per block until it changes.
   */
  json(): string {
    const list = this.snap.blocks
    const cache = this.cache
    for (let i = 0; i < list.length; i++) if (cache[i] === undefined) cache[i] = JSON.stringify(list[i])
    return `[${cache.join(',')}]`
  }

  /** A copy of the current blocks (new arrays and objects) that later diffs do not change. */
  snapshot(): Block[] {
    return this.snap.copy()
  }

  /** Starts over with no blocks, for the next message (a new array: the old one is no longer changed). */
  reset(): void {
    this.snap.reset()
    this.cache = []
  }
}
