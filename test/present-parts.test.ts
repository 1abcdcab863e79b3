// The Presenter's parts (issue 14), each alone: the Snapshot (shared with BlockAccumulator), the
// Cadence, the Display and the ToolRunner. The SPEC 7 scenarios through the whole Writable are in
// presenter*.test.ts.
import t from 'tap'
import fc from 'fast-check'
import { applyDiff, cleanDisplayText, type Block, type BlockDiff, type DiffRecord, type ToolUseBlock } from '../lib/index.js'
import { DiffSession } from '../lib/streams/session.js'
import { Snapshot } from '../lib/present/snapshot.js'
import type { TextRun } from '../lib/parse/field.js'
import { Cadence } from '../lib/present/cadence.js'
import { Display, type SayMessage } from '../lib/present/display.js'
import { ToolRunner, INTERRUPT_NOTES, type AttemptEnd, type ToolResult } from '../lib/present/tools.js'
import { soup, cutsUpTo, chunksOf, counter } from './helpers/arb.js'

const json = JSON.stringify
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function diffsOf(chunks: string[]): BlockDiff[] {
  const out: BlockDiff[] = []
  const session = new DiffSession({ idGenerator: counter() }, {
    record: (d: DiffRecord) => { if (d.op !== 'diagnostic' && d.op !== 'message' && d.op !== 'end') out.push(d) },
    diagnostic: () => {},
  })
  for (const c of chunks) session.push(c)
  session.end()
  return out
}

const text = (content: string, partial = true): Block => ({ type: 'text', content, partial })
const tool = (params: Record<string, string>, partial = true, extra: Partial<ToolUseBlock> = {}): ToolUseBlock =>
  ({ type: 'tool_use', name: 'write_to_file', params, partial, call_id: 'c1', isNativeToolCall: false, ...extra })

// ---- Snapshot ----------------------------------------------------------------------------------

t.test('Snapshot: checked diffs, appends through the rope, give what applyDiff gives', async (t) => {
  let appended = 0
  fc.assert(fc.property(soup.chain((s) => fc.tuple(fc.constant(s), cutsUpTo(s.length), fc.boolean())), ([s, cuts, readOften]) => {
    const snap: Snapshot = new Snapshot()
    let want: Block[] = []
    for (const d of diffsOf(chunksOf(s, cuts))) {
      want = applyDiff(want, d)
      snap.check(d)
      if (d.op === 'append' && snap.append(snap.live[d.index]!, d.path, d.text)) appended++
      else snap.apply(d)
      if (readOften && json(snap.blocks) !== json(want)) throw new Error(`mismatch on ${json(s)}`)
    }
    if (json(snap.blocks) !== json(want)) throw new Error(`mismatch at the end on ${json(s)}`)
    if (json(snap.copy()) !== json(want)) throw new Error('copy differs')
  }), { numRuns: 300 })
  t.ok(appended > 0, 'appends went through the rope')
})

t.test('Snapshot: appends that name a run of the parser\'s field (as a fused BlockParser hands them over) give what applyDiff gives, mixed with plain ones', async (t) => {
  let runs = 0
  let tails = 0
  let confirmed = 0
  fc.assert(fc.property(soup.chain((s) => fc.tuple(fc.constant(s), cutsUpTo(s.length), fc.boolean(), fc.infiniteStream(fc.boolean()))), ([s, cuts, readOften, plain]) => {
    const snap: Snapshot = new Snapshot()
    let want: Block[] = []
    // the last run append: its run, where its run part ended (`to`) and where its text ended
    let last: { run: TextRun; to: number; end: number; tail: string } | null = null
    const take = (d: DiffRecord | Block[], run?: TextRun, from?: number): void => {
      if (Array.isArray(d) || d.op === 'diagnostic' || d.op === 'message' || d.op === 'end') return
      // a negative `from` says the text ends past the run's end now
      const past = from !== undefined && from < 0
      if (past) from = -1 - from!
      const to = run === undefined ? undefined : past ? run.coreLength : from! + (d as { text: string }).text.length
      if (run !== undefined) {
        runs++
        // the session's promise: the text starts with that run of the field, now and later,
        // and what follows becomes the field's next characters if a run append goes on from there
        if (d.op !== 'append' || from! > to! || to! - from! > d.text.length || run.coreSlice(from!, to!) !== d.text.slice(0, to! - from!)) throw new Error(`a run that is not the text on ${json(s)}`)
        if (last !== null && last.run === run && from === last.end) {
          if (run.coreSlice(last.to, last.end) !== last.tail) throw new Error(`a tail that did not become the run on ${json(s)}`)
          if (last.tail.length > 0) confirmed++
        }
        if (to! - from! < d.text.length) tails++
        last = { run, to: to!, end: from! + d.text.length, tail: d.text.slice(to! - from!) }
      }
      want = applyDiff(want, d)
      snap.check(d)
      // some appends come without their run, as records that went through the readable side
      const lend = run !== undefined && plain.next().value
      if (d.op !== 'append' || !snap.append(snap.live[d.index]!, d.path, d.text, lend ? run : undefined, past ? -1 - from! : from)) snap.apply(d)
      if (readOften && json(snap.blocks) !== json(want)) throw new Error(`mismatch on ${json(s)}`)
    }
    const session = new DiffSession({ idGenerator: counter() }, {
      record: (d) => take(d),
      append: (index, path, text, run, from) => take({ op: 'append', index, path, text }, run, from),
      diagnostic: () => {},
    })
    session.lends = true
    for (const c of chunksOf(s, cuts)) session.push(c)
    session.end()
    if (json(snap.blocks) !== json(want)) throw new Error(`mismatch at the end on ${json(s)}`)
  }), { numRuns: 300 })
  t.ok(runs > 0, 'the session named runs')
  t.ok(tails > 0, 'some ended past their run')
  t.ok(confirmed > 0, 'and the next one turned that end into the run')
})

t.test('Snapshot: a run that does not continue the last one (another source, or a gap) is taken as its own', async (t) => {
  const source = (s: string): TextRun & { cuts: number } => ({ cuts: 0, coreLength: s.length, coreSlice(from, to) { this.cuts++; return s.slice(from, to) } })
  const a = source('abcdefghij')
  const b = source('0123456789')
  const snap: Snapshot = new Snapshot()
  snap.apply({ op: 'add', index: 0, block: tool({ content: '' }) })
  const blk = snap.live[0]!
  const grown = (r: { coreLength: number }, n: number) => { r.coreLength = n; return r as TextRun }
  snap.append(blk, 'params.content', 'ab', grown(a, 2), 0)
  snap.append(blk, 'params.content', 'cd', grown(a, 4), 2)
  t.equal(a.cuts, 0, 'a run that continues is not cut')
  snap.append(blk, 'params.content', 'gh', grown(a, 8), 6) // a gap
  snap.append(blk, 'params.content', '45', grown(b, 6), 4) // another source
  snap.append(blk, 'params.content', '!') // a plain piece
  snap.append(blk, 'params.content', '67', grown(b, 8), 6)
  t.equal((snap.blocks[0] as ToolUseBlock).params.content, 'abcdgh45!67')
  t.equal(a.cuts, 2, 'each run of a is cut once')
})

t.test('Snapshot: text past a run is kept as shown, until a run append from where it ended makes it the run\'s', async (t) => {
  // `coreLength` as the parser's field has it at each append
  const source = (s: string): TextRun & { cuts: number; coreLength: number } => ({ cuts: 0, coreLength: 0, coreSlice(from, to) { this.cuts++; return s.slice(from, to) } })
  const grown = (r: { coreLength: number }, n: number) => { r.coreLength = n; return r as TextRun }
  const a = source('abc<def<gh')
  const snap: Snapshot = new Snapshot()
  snap.apply({ op: 'add', index: 0, block: tool({ content: '' }) })
  const blk = snap.live[0]!
  snap.append(blk, 'params.content', 'abc<d', grown(a, 3), -1 - 0) // '<d' shown past the run
  t.equal(snap.openValue(), 'abc<d', 'read with its tail')
  snap.append(blk, 'params.content', 'ef<', grown(a, 7), -1 - 5) // the tail became the run: 'abc<def' then '<'
  snap.append(blk, 'params.content', 'h', grown(a, 10), 9) // a gap: the tail '<' is kept as it was shown
  t.equal((snap.blocks[0] as ToolUseBlock).params.content, 'abc<def<h')
  t.equal(a.cuts, 3, 'one cut for the first read, one for each run after it')
  const c = source('0123')
  const snap2: Snapshot = new Snapshot()
  snap2.apply({ op: 'add', index: 0, block: text('') })
  const t0 = snap2.live[0]!
  snap2.append(t0, 'content', '01<', grown(c, 2), -1 - 0)
  snap2.append(t0, 'content', '!') // a plain piece after a tail
  t.equal((snap2.blocks[0] as { content: string }).content, '01<!')
  t.equal(c.cuts, 1)
})

t.test('Snapshot: a field grown by appends reaches the block when read, and before any other change', async (t) => {
  const snap: Snapshot = new Snapshot()
  snap.apply({ op: 'add', index: 0, block: tool({ path: 'a', content: '' }) })
  const b = snap.live[0] as ToolUseBlock
  for (let i = 0; i < 300; i++) t.equal(snap.append(b, 'params.content', 'x'), true)
  t.equal(b.params.content, '', 'the live block lags until read')
  t.equal((snap.blocks[0] as ToolUseBlock).params.content, 'x'.repeat(300))
  snap.append(b, 'params.content', 'y')
  snap.append(b, 'params.path', 'b') // another field: the first one is written back
  t.equal(b.params.content, 'x'.repeat(300) + 'y')
  snap.check({ op: 'complete', index: 0 })
  snap.apply({ op: 'complete', index: 0 })
  t.same(snap.live[0], tool({ path: 'ab', content: 'x'.repeat(300) + 'y' }, false), 'a change other than an append syncs first')
})

t.test('Snapshot: append refuses a path that names no string field, changing nothing', async (t) => {
  const snap: Snapshot = new Snapshot()
  snap.apply({ op: 'add', index: 0, block: tool({ path: 'a' }) })
  snap.apply({ op: 'add', index: 1, block: text('hi') })
  const before = json(snap.blocks)
  for (const path of ['params.nope', 'params.__proto__', 'content', 'params', 'params.toString', 'reasoning']) {
    t.equal(snap.append(snap.live[0]!, path, 'x'), false, path)
  }
  t.equal(snap.append(snap.live[1]!, 'params.path', 'x'), false)
  t.equal(json(snap.blocks), before)
  t.equal(Object.getPrototypeOf((snap.live[0] as ToolUseBlock).params), Object.prototype)
  t.throws(() => snap.check({ op: 'append', index: 2, path: 'content', text: 'x' }), { code: 'ERR_INVALID_DIFF' })
})

t.test('Snapshot: blocks are its own copies; reset starts a new array and leaves the old one alone', async (t) => {
  const mine = { type: 'text' as const, content: 'a', partial: true }
  const snap: Snapshot = new Snapshot()
  snap.apply({ op: 'add', index: 0, block: mine })
  snap.append(snap.live[0]!, 'content', 'b')
  const copy = snap.copy()
  snap.append(snap.live[0]!, 'content', 'c')
  t.equal(mine.content, 'a', "the sender's block is not changed")
  t.equal((copy[0] as { content: string }).content, 'ab', 'a copy does not follow later appends')
  const old = snap.blocks
  snap.reset()
  t.equal(snap.length, 0)
  snap.apply({ op: 'add', index: 0, block: text('new') })
  t.same(old, [text('abc')], 'the old array keeps its last state, synced at the reset')
})

// ---- Cadence -----------------------------------------------------------------------------------

t.test('Cadence: 0 ms never defers; otherwise one timer per wait, cancellable', async (t) => {
  let due = 0
  const none = new Cadence(0, () => { due++ })
  none.shown()
  t.equal(none.deferred(true), false)
  const c = new Cadence(30, () => { due++ })
  t.equal(c.deferred(false), false, 'the first update of a block is never deferred')
  t.equal(c.deferred(true), false, 'no update shown yet: due')
  c.shown()
  t.equal(c.deferred(false), false)
  t.equal(c.deferred(true), true, 'too early after an update')
  t.equal(c.deferred(true), true)
  await sleep(80)
  t.equal(due, 1, 'one timer, however often an update was refused')
  t.equal(c.deferred(true), false, 'due once the interval is over')
  c.shown()
  t.equal(c.deferred(true), true)
  c.cancel()
  await sleep(80)
  t.equal(due, 1, 'a cancelled timer does not fire')
  c.shown()
  c.reset()
  t.equal(c.deferred(true), false, 'a new block is not held back by the last update of the previous one')
})

// ---- Display -----------------------------------------------------------------------------------

function display(opts: { cleanText?: boolean; say?: boolean; partial?: boolean; cadenceMs?: number } = {}) {
  const snap: Snapshot = new Snapshot()
  const said: SayMessage[] = []
  const events: SayMessage[] = []
  const partials: ToolUseBlock[] = []
  let listeners = 0
  const d = new Display(snap, new Cadence(opts.cadenceMs ?? 0, () => {}), {
    say: opts.say === false ? undefined : (m) => { said.push(m) },
    onToolPartial: opts.partial === false ? undefined : (b) => { partials.push(b) },
    cleanText: opts.cleanText ?? true,
  }, {
    textListened: () => listeners > 0,
    emit: (_e, m) => { events.push(m); return true },
  })
  return { snap, d, said, events, partials, listen: () => { listeners = 1 } }
}

t.test('Display: a growing text block is said when its display text changes, cleaned, and last with partial: false', async (t) => {
  const { snap, d, said } = display()
  snap.apply({ op: 'add', index: 0, block: text('') })
  d.reset(snap.live[0])
  const b = snap.live[0]!
  t.equal(d.show(b), undefined)
  t.same(said, [], 'nothing to show yet')
  for (const piece of ['<thinking>', 'plan', '</thinking> ', 'Reading', ' <read_fi', 'le>x']) {
    snap.append(b, 'content', piece)
    d.appended(b, piece)
    d.show(b)
  }
  t.same(said.map((m) => m.content), ['plan', 'plan ', 'plan Reading', 'plan Reading <read_file>x'],
    'the opening tag alone and a partial tag at the end change nothing that is shown')
  t.ok(said.every((m) => m.partial && m.type === 'text'))
  snap.append(b, 'content', '\n```xml')
  d.appended(b, '\n```xml')
  ;(b as { partial: boolean }).partial = false
  d.touched()
  d.show(b)
  t.same(said.at(-1), { type: 'text', content: 'plan Reading <read_file>x\n', partial: false }, 'the fence opener is cut on the complete block')
})

t.test('Display: every update equals cleanDisplayText of the text so far, and no two in a row are equal', async (t) => {
  fc.assert(fc.property(fc.array(fc.oneof(fc.constantFrom('<', '>', '</', 'thinking', 'think', ' ', '\n', '```', 'a', 'b c', '<thinking>', '</thinking>')), { maxLength: 30 }), (pieces) => {
    const { snap, d, said } = display()
    snap.apply({ op: 'add', index: 0, block: text('') })
    d.reset(snap.live[0])
    const b = snap.live[0]!
    let all = ''
    for (const p of pieces) {
      all += p
      snap.append(b, 'content', p)
      d.appended(b, p)
      const before = said.length
      d.show(b)
      if (said.length > before && said.at(-1)!.content !== cleanDisplayText(all, true)) throw new Error(`differs on ${json(pieces)}`)
    }
    for (let i = 1; i < said.length; i++) if (said[i]!.content === said[i - 1]!.content) throw new Error(`repeated on ${json(pieces)}`)
    const shown = cleanDisplayText(all, true)
    if (shown.length > 0 && said.at(-1)?.content !== shown) throw new Error(`last update is not the text on ${json(pieces)}`)
  }), { numRuns: 500 })
})

t.test('Display: a `set` cleans the block again; cleanText false shows the raw text; reasoning as is', async (t) => {
  const { snap, d, said, events, listen } = display()
  snap.apply({ op: 'add', index: 0, block: text('a <thinking>b') })
  d.reset(snap.live[0])
  listen()
  d.show(snap.live[0]!)
  snap.apply({ op: 'set', index: 0, path: 'content', value: 'c <think>d' })
  d.changed(snap.live[0]!)
  d.show(snap.live[0]!)
  t.same(said.map((m) => m.content), ['a b', 'c d'])
  t.same(events, said, 'the text event gets the same messages')
  const raw = display({ cleanText: false })
  raw.snap.apply({ op: 'add', index: 0, block: text('a <thinking>b') })
  raw.d.reset(raw.snap.live[0])
  raw.d.show(raw.snap.live[0]!)
  t.equal(raw.d.show(raw.snap.live[0]!), undefined)
  t.same(raw.said.map((m) => m.content), ['a <thinking>b'], 'shown once: unchanged since')
  raw.snap.apply({ op: 'add', index: 1, block: { type: 'reasoning', reasoning: 'hm', partial: true } })
  raw.d.reset(raw.snap.live[1])
  raw.snap.append(raw.snap.live[1]!, 'reasoning', ' <x')
  raw.d.appended(raw.snap.live[1]!, ' <x')
  raw.d.show(raw.snap.live[1]!)
  t.same(raw.said.at(-1), { type: 'reasoning', content: 'hm <x', partial: true })
})

t.test('Display: onToolPartial gets a new view per change, whose params are the display\'s own, updated in place', async (t) => {
  const { snap, d, partials } = display()
  snap.apply({ op: 'add', index: 0, block: tool({ path: 'a' }) })
  d.reset(snap.live[0])
  const b = snap.live[0]!
  d.show(b)
  d.show(b)
  t.equal(partials.length, 1, 'unchanged: no second update')
  const seen: string[] = []
  for (const piece of ['.t', 's']) {
    snap.append(b, 'params.path', piece)
    d.appended(b, piece)
    d.show(b)
    seen.push(partials.at(-1)!.params.path!)
  }
  t.same(seen, ['a.t', 'a.ts'], 'each update holds the value at its call')
  t.equal(partials.length, 3)
  t.not(partials[1], partials[2], 'a new object per update')
  t.not(partials[2]!.params, (b as ToolUseBlock).params, 'never the snapshot\'s params')
  partials[2]!.params.path = 'mutated'
  t.equal((snap.blocks[0] as ToolUseBlock).params.path, 'a.ts', 'a view written to reaches nothing else')
  // a set, or appends to two fields between updates: the view's params are copied again
  snap.apply({ op: 'set', index: 0, path: 'params.content', value: 'x' })
  d.changed(snap.live[0]!)
  d.show(snap.live[0]!)
  t.same(partials.at(-1)!.params, { path: 'a.ts', content: 'x' })
  const c = snap.live[0]!
  snap.append(c, 'params.content', 'y')
  d.appended(c, 'y')
  snap.append(c, 'params.path', '!')
  d.appended(c, '!')
  d.show(c)
  t.same(partials.at(-1)!.params, { path: 'a.ts!', content: 'xy' })
  t.equal(partials.at(-1)!.partial, true)
  const none = display({ partial: false })
  none.snap.apply({ op: 'add', index: 0, block: tool({ path: 'a' }) })
  none.d.reset(none.snap.live[0])
  t.equal(none.d.show(none.snap.live[0]!), undefined, 'no hook: nothing to do')
})

t.test('Display: the growing param of a tool view is read live: its value at each call, the block\'s once closed; a write keeps to that object', async (t) => {
  const { snap, d, partials } = display()
  snap.apply({ op: 'add', index: 0, block: tool({ path: 'a', content: '' }) })
  d.reset(snap.live[0])
  const b = snap.live[0]!
  const atCall: string[] = []
  const json: string[] = []
  for (const piece of ['x', 'y', 'z']) {
    snap.append(b, 'params.content', piece)
    d.appended(b, piece)
    d.show(b)
    const v = partials.at(-1)!
    atCall.push(v.params.content!)
    json.push(JSON.stringify(v.params))
  }
  t.same(atCall, ['x', 'xy', 'xyz'], 'the value at each call')
  t.same(json, ['{"path":"a","content":"x"}', '{"path":"a","content":"xy"}', '{"path":"a","content":"xyz"}'], 'own and enumerable, in its place')
  const kept = partials.at(-1)!.params
  t.equal(typeof Object.getOwnPropertyDescriptor(kept, 'content')!.get, 'function', 'an accessor: no string is made unless read')
  t.same({ ...kept }, { path: 'a', content: 'xyz' }, 'a spread copies plain strings')
  // the field closes (another one opens): a view kept from before reads the block's final value
  snap.append(b, 'params.path', '.ts')
  d.appended(b, '.ts')
  d.show(b)
  t.equal(kept.content, 'xyz', 'a closed field reads the block\'s own value')
  t.not(partials.at(-1)!.params, kept, 'the params were copied again when another field grew')
  t.same({ ...partials.at(-1)!.params }, { path: 'a.ts', content: 'xyz' })
  snap.append(b, 'params.path', 'x')
  d.appended(b, 'x')
  d.show(b)
  t.equal(partials.at(-1)!.params.path, 'a.tsx', 'the new open field is the live one')
  t.equal(kept.path, 'a', 'the old copy\'s other params are its own')
  // a hook that writes to the live param: that object keeps the write, the snapshot does not see
  // it, and the next update copies the params again
  const live = partials.at(-1)!.params
  live.path = 'mutated'
  t.equal(live.path, 'mutated')
  t.equal((snap.blocks[0] as ToolUseBlock).params.path, 'a.tsx', 'the snapshot is untouched')
  snap.append(b, 'params.path', '!')
  d.appended(b, '!')
  d.show(b)
  t.not(partials.at(-1)!.params, live, 'copied again after the write')
  t.equal(partials.at(-1)!.params.path, 'a.tsx!')
  t.equal(live.path, 'mutated', 'the written object keeps its value')
})

t.test('Display: with no say hook and no text listener nothing is cleaned; a listener that comes later gets the text from then on', async (t) => {
  const { snap, d, events, listen } = display({ say: false })
  snap.apply({ op: 'add', index: 0, block: text('<thinking>a') })
  d.reset(snap.live[0])
  const b = snap.live[0]!
  for (const piece of [' b', '</thinking> c']) {
    snap.append(b, 'content', piece)
    d.appended(b, piece)
    t.equal(d.show(b), undefined)
  }
  t.same(events, [])
  listen()
  snap.append(b, 'content', ' d')
  d.appended(b, ' d')
  d.show(b)
  t.same(events, [{ type: 'text', content: 'a b c d', partial: true }], 'cleaned from the whole text when a reader came')
})

t.test('Display: a tool view follows a field that is not the open one, and a held-back update with a cadence', async (t) => {
  const { snap, d, partials } = display({ cadenceMs: 10_000 })
  snap.apply({ op: 'add', index: 0, block: tool({ path: 'a', content: '' }) })
  snap.apply({ op: 'add', index: 1, block: text('later') })
  d.reset(snap.live[0])
  const b = snap.live[0]!
  d.show(b)
  // the tool is not the last block: its appends come through the checked path, not the rope
  snap.apply({ op: 'append', index: 0, path: 'params.content', text: 'x' })
  d.appended(snap.live[0]!, 'x')
  t.equal(d.show(snap.live[0]!), undefined, 'held back by the cadence')
  t.equal(partials.length, 1)
  ;(b as { partial: boolean }).partial = false
  ;(b as ToolUseBlock).truncated = true
  d.reset(undefined)
  d.reset(b)
  d.show(b)
  t.same(partials.at(-1), { ...tool({ path: 'a', content: 'x' }, false), truncated: true }, 'a new block: shown at once')
  const fresh = display()
  fresh.snap.apply({ op: 'add', index: 0, block: tool({ content: 'a' }) })
  fresh.snap.apply({ op: 'add', index: 1, block: text('') })
  fresh.d.reset(fresh.snap.live[0])
  fresh.d.show(fresh.snap.live[0]!)
  const first = fresh.partials[0]!.params.content
  fresh.snap.apply({ op: 'append', index: 0, path: 'params.content', text: 'b' })
  fresh.d.appended(fresh.snap.live[0]!, 'b')
  fresh.d.show(fresh.snap.live[0]!)
  t.same([first, fresh.partials[1]!.params.content], ['a', 'ab'], 'read from the block when the field is not open')
})

t.test('Display: a tool field that grew and was then closed by another change is read from the block', async (t) => {
  // diffs applied together (`_writev`): an append to the open field, then a change applied
  // otherwise (a new block after it), then one update
  const { snap, d, partials } = display()
  snap.apply({ op: 'add', index: 0, block: tool({ path: 'a', content: 'x' }) })
  d.reset(snap.live[0])
  const b = snap.live[0]!
  d.show(b)
  const first = partials[0]!.params
  snap.append(b, 'params.content', 'y')
  d.appended(b, 'y')
  snap.apply({ op: 'add', index: 1, block: text('later') })
  d.show(b)
  t.same(partials.map((v) => ({ ...v.params })), [{ path: 'a', content: 'x' }, { path: 'a', content: 'xy' }])
  t.not(partials[1]!.params, first, 'a fresh copy of the params')
  t.same(first, { path: 'a', content: 'x' }, 'the earlier view was not written to')
})

t.test('Display: a reader that comes when the block completes gets its whole cleaned text', async (t) => {
  const { snap, d, events, listen } = display({ say: false })
  snap.apply({ op: 'add', index: 0, block: text('a <think>b') })
  d.reset(snap.live[0])
  const b = snap.live[0]!
  snap.append(b, 'content', '\n```js')
  d.appended(b, '\n```js')
  d.show(b)
  listen()
  ;(b as { partial: boolean }).partial = false
  d.touched()
  d.show(b)
  t.same(events, [{ type: 'text', content: 'a b\n', partial: false }])
})

t.test('Display: with a cadence, a partial update too soon after the last is held back; the final one is not', async (t) => {
  const { snap, d, said } = display({ cadenceMs: 10_000 })
  snap.apply({ op: 'add', index: 0, block: text('a') })
  d.reset(snap.live[0])
  const b = snap.live[0]!
  d.show(b)
  snap.append(b, 'content', 'b')
  d.appended(b, 'b')
  d.show(b)
  t.same(said.map((m) => m.content), ['a'], 'held back')
  ;(b as { partial: boolean }).partial = false
  d.touched()
  d.show(b)
  t.same(said.map((m) => [m.content, m.partial]), [['a', true], ['ab', false]])
  d.reset(undefined)
})

t.test('Display: a hook that returns a promise gives a promise to wait for', async (t) => {
  const snap: Snapshot = new Snapshot()
  let resolved = false
  const d = new Display(snap, new Cadence(0, () => {}), {
    say: () => sleep(5).then(() => { resolved = true }), onToolPartial: undefined, cleanText: true,
  }, { textListened: () => false, emit: () => false })
  snap.apply({ op: 'add', index: 0, block: text('x', false) })
  d.reset(snap.live[0])
  const p = d.show(snap.live[0]!)
  t.ok(p instanceof Promise)
  await p
  t.equal(resolved, true)
})

// ---- ToolRunner --------------------------------------------------------------------------------

function runner(opts: { parallel?: boolean; readOnly?: string[]; checkpoint?: PromiseLike<unknown>; exec?: (b: ToolUseBlock, c: { signal: AbortSignal }) => unknown } = {}) {
  const events: [string, unknown][] = []
  const host = { destroyed: false, emit: (e: string, a: unknown) => { events.push([e, a]); return true } }
  const calls: ToolUseBlock[] = []
  const r = new ToolRunner({
    executeTool: (b, c) => { calls.push(b); return (opts.exec ?? (() => 'done'))(b, c) as string },
    parallel: opts.parallel ?? false,
    readOnly: new Set(opts.readOnly ?? ['read_file']),
    checkpoint: opts.checkpoint,
  }, host as never)
  return { r, events, host, calls }
}

async function attempt(r: ToolRunner, b: ToolUseBlock): Promise<AttemptEnd | 'none'> {
  let end: AttemptEnd | 'none' = 'none'
  await r.run(b, (e) => { end = e })
  return end
}

t.test('ToolRunner: outcomes and the interrupt each calls for', async (t) => {
  const cases: [unknown, ToolResult['status'], string, AttemptEnd, AttemptEnd][] = [
    ['out', 'ok', 'out', 'tool-used', null],
    [{ content: 'fine' }, 'ok', 'fine', 'tool-used', null],
    [{ content: 'no', rejected: true }, 'rejected', 'no', 'rejected', 'rejected'],
    [null, 'error', 'executeTool returned null; expected a string or { content }', 'tool-used', null],
    [{ content: 3 }, 'error', 'executeTool returned object; expected a string or { content }', 'tool-used', null],
  ]
  for (const [out, status, content, one, parallel] of cases) {
    for (const par of [false, true]) {
      const { r, events } = runner({ parallel: par, exec: async () => out })
      const end = await attempt(r, tool({ path: 'a' }, false))
      t.equal(end, par ? parallel : one, `${json(out)} parallel ${par}`)
      t.same(r.results, [{ call_id: 'c1', name: 'write_to_file', content, status }])
      t.same(events.map(([e]) => e), ['tool', 'result'])
    }
  }
  const { r } = runner({ exec: () => { throw new Error('boom') } })
  t.equal(await attempt(r, tool({}, false)), 'tool-used')
  t.same(r.results.map((x) => [x.status, x.content]), [['error', 'boom']])
})

t.test('ToolRunner: a truncated call is not run; a partial one cut off gets its error', async (t) => {
  const { r, calls, events } = runner()
  t.equal(await attempt(r, tool({}, false, { truncated: true })), null, 'not an attempt: no interrupt')
  t.equal(await attempt(r, tool({}, false, { truncated: true, isNativeToolCall: true })), null)
  r.cutOff(tool({}))
  r.cutOff(tool({}, true, { isNativeToolCall: true }))
  t.equal(calls.length, 0)
  t.ok(r.results.every((x) => x.status === 'error' && /was not executed/.test(x.content)))
  t.match(r.results[0]!.content, /closing tag/)
  t.match(r.results[1]!.content, /arguments were incomplete/)
  t.same(events.map(([e]) => e), ['result', 'result', 'result', 'result'], 'no tool event')
})

t.test('ToolRunner: the checkpoint holds back tools that write, not read-only ones; a failed one refuses them', async (t) => {
  let release!: () => void
  const checkpoint = new Promise<void>((res) => { release = res })
  const { r, calls } = runner({ parallel: true, checkpoint })
  t.equal(await attempt(r, { ...tool({ path: 'a' }, false), name: 'read_file' }), null)
  t.equal(calls.length, 1, 'read-only: ran without waiting')
  const p = attempt(r, tool({}, false))
  await sleep(5)
  t.equal(calls.length, 1, 'a tool that writes waits')
  release()
  await p
  t.equal(calls.length, 2)
  const failed = runner({ checkpoint: Promise.reject(new Error('disk full')) })
  await sleep(1) // a checkpoint that fails before any tool needs it is no unhandled rejection
  t.equal(await attempt(failed.r, tool({}, false)), 'tool-used', 'the model must read the refusal first')
  t.equal(failed.calls.length, 0)
  t.match(failed.r.results[0]!.content, /checkpoint before it failed \(disk full\)/)
  const gone2 = runner({ checkpoint: Promise.resolve() })
  gone2.host.destroyed = true
  t.equal(await attempt(gone2.r, tool({}, false)), 'none', 'destroyed while waiting: no attempt')
  t.equal(gone2.calls.length, 0)
})

t.test('ToolRunner: an abort while a tool runs records an error, aborts its signal, and takes its late outcome', async (t) => {
  let signal!: AbortSignal
  let finish!: (v: string) => void
  const { r, events } = runner({ exec: (_b, c) => { signal = c.signal; return new Promise<string>((res) => { finish = res }) } })
  const p = attempt(r, tool({}, false))
  await sleep(1)
  r.abort(new Error('stop'))
  t.equal(signal.aborted, true)
  t.same(r.results, [{ call_id: 'c1', name: 'write_to_file', content: 'aborted: the presentation stopped while the tool ran (stop)', status: 'error' }])
  r.abort(new Error('again')) // nothing in flight any more
  finish('written')
  t.equal(await p, 'none', 'the cursor does not move after an abort')
  t.same(r.results, [{ call_id: 'c1', name: 'write_to_file', content: 'written', status: 'ok', afterAbort: true }])
  t.same(events.at(-1), ['result', r.results[0]])
})

t.test('ToolRunner: skipped results for the stopped message, each tool once, and a new message starts over', async (t) => {
  const { r } = runner()
  const blocks: Block[] = [text('x'), tool({}, false), text('y'), { ...tool({}), call_id: 'c2' }]
  const info = r.stop('tool-used')
  t.same(info, { reason: 'tool-used', note: INTERRUPT_NOTES['tool-used'] })
  t.equal(r.last, info)
  r.skipRest(blocks, 2, info)
  r.skipRest(blocks, 2, info)
  t.same(r.results.map((x) => [x.call_id, x.status]), [['c2', 'skipped']])
  blocks[3] = { ...tool({}), call_id: 'c3' } // replaced since: another call, another result
  r.skipRest(blocks, 2, info)
  t.same(r.results.map((x) => x.call_id), ['c2', 'c3'])
  r.newMessage()
  t.equal(r.last, info, 'the last interrupt is kept over messages')
  r.skipRest(blocks, 0, r.stop('rejected'))
  t.match(r.results.at(-1)!.content, /a previous tool was rejected/)
  t.equal(r.results.at(-1)!.call_id, 'c3', 'per message: the same block is skipped again in a new message')
})
