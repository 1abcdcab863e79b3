/**
 * A mutable block array that diffs are applied to in place: for consumers that see every diff and
 * do not need a new array per diff (the CLI's `--final` and `--snapshots`, a server keeping the
 * state of a message).
 * @module
 */
import type { Block, BlockDiff } from '../types.js'
import { Rope } from '../parse/rope.js'
import { applyChecked, cloneBlock } from '../present/snapshot.js'
import { checkDiff, setParam } from './validate.js'

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
  private list: Block[] = []
  /** JSON of each block as of the last `json()`; `undefined` where the block changed since. */
  private cache: (string | undefined)[] = []
  /** The block whose field at `openPath` grows in `rope`; the block's own value lags behind. */
  private openBlock: Block | null = null
  private openPath = ''
  private readonly rope = new Rope()
  private stale = false

  /**
   * @param initial - blocks to start from (checked and copied); none by default
   */
  constructor(initial: readonly Block[] = []) {
    for (const b of initial) this.apply({ op: 'add', index: this.list.length, block: b })
  }

  /**
   * Applies one diff in place. Throws `ERR_INVALID_DIFF`, having changed nothing, when it does
   * not fit the blocks.
   * @param diff - the diff, from a BlockParser, a log or the network
   * @returns this accumulator, for chaining
   */
  apply(diff: BlockDiff): this {
    checkDiff(diff, this.list)
    const cache = this.cache
    if (diff.op === 'truncate') {
      if (diff.length < cache.length) cache.length = diff.length
    } else if (diff.index < cache.length) cache[diff.index] = undefined // an add is past the end: nothing cached
    if (diff.op === 'append') {
      const b = this.list[diff.index]!
      if (b !== this.openBlock || diff.path !== this.openPath) {
        this.sync()
        this.openBlock = b
        this.openPath = diff.path
        this.rope.reset(b.type === 'text' ? b.content : b.type === 'reasoning' ? b.reasoning : b.params[diff.path.slice(7)]!)
      }
      this.rope.push(diff.text)
      this.stale = true
      return this
    }
    this.detach()
    applyChecked(this.list, diff)
    return this
  }

  /** The current blocks: the live array, valid until the next change (do not modify it). */
  get blocks(): readonly Block[] {
    this.sync()
    return this.list
  }

  /** How many blocks there are. */
  get length(): number {
    return this.list.length
  }

  /**
   * `JSON.stringify(this.blocks)`, byte for byte, re-serializing only the blocks changed since the
   * last call: printing the whole array after every chunk (`--snapshots`) costs a copy of the
   * output per call, not a walk of every block. Keeps one JSON string per block until it changes.
   */
  json(): string {
    this.sync()
    const list = this.list
    const cache = this.cache
    for (let i = 0; i < list.length; i++) if (cache[i] === undefined) cache[i] = JSON.stringify(list[i])
    return `[${cache.join(',')}]`
  }

  /** A copy of the current blocks (new arrays and objects) that later diffs do not change. */
  snapshot(): Block[] {
    this.sync()
    return this.list.map(cloneBlock)
  }

  /** Starts over with no blocks, for the next message (a new array: the old one is no longer changed). */
  reset(): void {
    this.detach()
    this.list = []
    this.cache = []
  }

  /** Writes the rope's value to the open block. */
  private sync(): void {
    if (!this.stale) return
    this.stale = false
    const b = this.openBlock!
    const value = this.rope.value
    if (b.type === 'text') b.content = value
    else if (b.type === 'reasoning') b.reasoning = value
    else setParam(b.params, this.openPath.slice(7), value)
  }

  /** Before any change other than an append to the open field. */
  private detach(): void {
    this.sync()
    this.openBlock = null
    this.openPath = ''
  }
}
