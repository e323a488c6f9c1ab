import { describeReference, dotted, platformResolver, type ClassPath } from './api-level.js';
import type { DexClass, DexInstruction, DexMethodCode, DexReference } from './dexdump.js';

/**
 * The compat classes may use APIs above 23, but each such reference must run only on a phone new
 * enough for it. This is a small forward data-flow analysis over one method's instructions (as
 * dexdump prints them): at each instruction, the lowest Build.VERSION.SDK_INT that every path from
 * the method's entry to it has proven. A path proves `SDK_INT >= N` by reading
 * `sget vA, Landroid/os/Build$VERSION;.SDK_INT:I`, loading a constant N, and taking the branch of an
 * if-* between them that holds only when SDK_INT >= N. Both shapes javac gives pass:
 * `if (SDK_INT < 26) return;` (the fall-through of `if-ge`) and `if (SDK_INT >= 26) { … }`.
 *
 * Conservative where it is simple to be: a switch may go to any instruction; a catch handler starts
 * from what holds at every instruction its try range covers; any instruction not understood here
 * forgets what its destination register held. Guards in another method (a helper that returns
 * `SDK_INT >= 26`) are not followed: the reference must sit behind its own comparison.
 */

/** What a register holds, when the analysis knows: SDK_INT itself or an int constant. */
type Value = 'sdk' | number;

interface State {
  /** SDK_INT >= atLeast on every path here (0: nothing proven). */
  atLeast: number;
  registers: ReadonlyMap<string, Value>;
}

const ENTRY: State = { atLeast: 0, registers: new Map() };
const SDK_INT = 'android/os/Build$VERSION.SDK_INT:I';

function join(a: State | undefined, b: State): State {
  if (!a) return b;
  const registers = new Map<string, Value>();
  for (const [r, v] of a.registers) if (b.registers.get(r) === v) registers.set(r, v);
  return { atLeast: Math.min(a.atLeast, b.atLeast), registers };
}

const same = (a: State, b: State): boolean =>
  a.atLeast === b.atLeast && a.registers.size === b.registers.size && [...a.registers].every(([r, v]) => b.registers.get(r) === v);

const registersOf = (operands: string): string[] => operands.match(/\bv\d+\b/g) ?? [];

/** Instructions whose first register is read, not written (or that write none). */
const WRITES_NOTHING = /^(invoke|if-|goto|return|throw|sput|iput|aput|fill-array-data|monitor|packed-switch|sparse-switch|nop|check-cast|filled-new-array)/;

/** The state after an instruction that does not branch on SDK_INT. */
function step(state: State, insn: DexInstruction): State {
  if (WRITES_NOTHING.test(insn.op)) return state;
  const [dest, source] = registersOf(insn.operands);
  if (!dest) return state;
  const registers = new Map(state.registers);
  registers.delete(dest);
  if (insn.op.includes('wide')) registers.delete(`v${Number(dest.slice(1)) + 1}`);
  const ref = insn.reference;
  if (insn.op === 'sget' && ref && `${ref.owner}.${ref.name}:${ref.descriptor}` === SDK_INT) registers.set(dest, 'sdk');
  else if (/^const(\/4|\/16)?$/.test(insn.op)) {
    const literal = /#int (-?\d+)/.exec(insn.operands);
    if (literal) registers.set(dest, Number(literal[1]));
  } else if (/^move(\/from16|\/16)?$/.test(insn.op) && source) {
    const value = state.registers.get(source);
    if (value !== undefined) registers.set(dest, value);
  }
  return { atLeast: state.atLeast, registers };
}

type Relation = 'lt' | 'le' | 'gt' | 'ge' | 'eq' | 'ne';
const MIRROR: Record<Relation, Relation> = { lt: 'gt', le: 'ge', gt: 'lt', ge: 'le', eq: 'eq', ne: 'ne' };
const NEGATE: Record<Relation, Relation> = { lt: 'ge', le: 'gt', gt: 'le', ge: 'lt', eq: 'ne', ne: 'eq' };

/** The lowest SDK_INT that `SDK_INT <relation> c` implies, if it implies one. */
function lowerBound(relation: Relation, c: number): number | undefined {
  if (relation === 'ge' || relation === 'eq') return c;
  if (relation === 'gt') return c + 1;
  return undefined;
}

/** For an if-* comparing SDK_INT with a constant: the relation that holds when the branch is taken. */
function sdkComparison(state: State, insn: DexInstruction): { relation: Relation; c: number } | undefined {
  const test = /^if-(lt|le|gt|ge|eq|ne)(z?)$/.exec(insn.op);
  if (!test) return undefined;
  const relation = test[1] as Relation;
  const [a, b] = registersOf(insn.operands).map((r) => state.registers.get(r));
  if (test[2]) return a === 'sdk' ? { relation, c: 0 } : undefined;
  if (a === 'sdk' && typeof b === 'number') return { relation, c: b };
  if (b === 'sdk' && typeof a === 'number') return { relation: MIRROR[relation], c: a };
  return undefined;
}

const narrowed = (state: State, bound: number | undefined): State => (bound === undefined || bound <= state.atLeast ? state : { ...state, atLeast: bound });

/**
 * For each instruction offset reachable from the method's entry, the lowest SDK_INT proven there.
 * Pure: it reads only the instructions and try ranges that dexdump printed.
 */
export function provenSdkLevels(method: Pick<DexMethodCode, 'instructions' | 'tries'>): Map<number, number> {
  const code = method.instructions;
  const index = new Map(code.map((insn, i) => [insn.offset, i]));
  const states: Array<State | undefined> = new Array(code.length);
  const queue: number[] = [];
  const flow = (i: number | undefined, state: State): void => {
    if (i === undefined || i >= code.length) return;
    const merged = join(states[i], state);
    if (states[i] && same(states[i]!, merged)) return;
    states[i] = merged;
    queue.push(i);
  };
  if (code.length) flow(0, ENTRY);

  while (queue.length) {
    const i = queue.pop()!;
    const state = states[i]!;
    const insn = code[i]!;
    const next = i + 1;
    const target = insn.relative === undefined ? undefined : index.get(insn.offset + insn.relative);
    for (const t of method.tries) {
      if (insn.offset >= t.start && insn.offset < t.end) for (const h of t.handlers) flow(index.get(h), { atLeast: state.atLeast, registers: new Map() });
    }
    if (/^(return|throw)/.test(insn.op)) continue;
    if (insn.op.startsWith('goto')) {
      // A target we cannot place: every instruction, to stay conservative.
      if (target === undefined) code.forEach((_, j) => flow(j, state));
      else flow(target, state);
      continue;
    }
    if (/^(packed|sparse)-switch$/.test(insn.op)) {
      code.forEach((_, j) => flow(j, state));
      continue;
    }
    if (insn.op.startsWith('if-')) {
      const comparison = sdkComparison(state, insn);
      const taken = comparison ? narrowed(state, lowerBound(comparison.relation, comparison.c)) : state;
      const fallThrough = comparison ? narrowed(state, lowerBound(NEGATE[comparison.relation], comparison.c)) : state;
      if (target === undefined) code.forEach((_, j) => flow(j, state));
      else flow(target, taken);
      flow(next, fallThrough);
      continue;
    }
    flow(next, step(state, insn));
  }
  const levels = new Map<number, number>();
  states.forEach((s, i) => s && levels.set(code[i]!.offset, s.atLeast));
  return levels;
}

/** The API level a reference needs, when the stubs say (see stub-levels.ts); else the rule's 24. */
export type LevelOf = (ref: DexReference) => number | undefined;

export const DEFAULT_GUARD_LEVEL = 24;

/**
 * Every reference a compat method makes that does not resolve in the platform (android.jar of
 * `api`) must sit where SDK_INT >= its level is proven: the level the stubs give, or 24 when they
 * give none. Names class, method and reference; `allowed` as for checkApiLevel.
 */
export function checkSdkGuards(
  classes: readonly DexClass[],
  platform: ClassPath,
  options: { api: number; compat: (className: string) => boolean; levelOf?: LevelOf; allowed?: ReadonlySet<string> },
): string[] {
  const resolve = platformResolver(classes, platform, options.api);
  const problems: string[] = [];
  for (const cls of classes) {
    if (!options.compat(cls.name)) continue;
    for (const method of cls.code ?? []) {
      let levels: Map<number, number> | undefined;
      const at = (insn: DexInstruction, ref: DexReference): void => {
        const reference = describeReference(ref);
        if (options.allowed?.has(reference) || !resolve(ref)) return;
        const needed = Math.max(options.levelOf?.(ref) ?? DEFAULT_GUARD_LEVEL, options.api + 1);
        levels ??= provenSdkLevels(method);
        // Unreachable from the entry: dead code cannot run on any phone.
        const proven = levels.get(insn.offset) ?? Infinity;
        if (proven >= needed) return;
        const where = `${dotted(cls.name)}.${method.name}${method.descriptor}`;
        // Once per method and reference (const-class and check-cast of one class are one finding).
        const problem =
          proven > 0
            ? `${where}: ${reference} needs API ${needed} but runs where only SDK_INT >= ${proven} is proven`
            : `${where}: ${reference} (API ${needed}) is not behind a Build.VERSION.SDK_INT >= ${needed} guard`;
        if (!problems.includes(problem)) problems.push(problem);
      };
      for (const insn of method.instructions) if (insn.reference) at(insn, insn.reference);
      // A caught class is resolved when something in its try range throws.
      for (const t of method.tries) {
        const first = method.instructions.find((insn) => insn.offset >= t.start);
        if (first) for (const type of t.types) at(first, { kind: 'class', owner: type, via: 'catch' });
      }
    }
  }
  return problems;
}
