import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 80;

/** A function of src/ as the rule sees it: from its first token (its doc comment not counted) to its last. */
interface Fn {
  file: string;
  line: number;
  lines: number;
  /** `Class.method`, the variable or property it is assigned to, or the call it is passed to. */
  name: string;
  /** The names of the functions it lies in, outermost first. */
  within: string[];
  /** A callback passed to `describe(…)` in a test file. */
  describeCallback: boolean;
}

/**
 * The one list of exceptions to the sizes' rule; docs/architecture.md ("Sizes") says why each is
 * one. A function is excepted when the entry names it or a function it lies in.
 */
const EXCEPTIONS: readonly { file: string; fn: string; why: string }[] = [
  { file: 'src/store/migrations/002-calls.ts', fn: 'calls', why: 'a shipped migration is never edited: databases have run it as it is' },
];

/**
 * The other exception, a rule rather than a name: in a test file, a `describe` callback is a list of
 * cases, each of them a function the rule holds to 80 lines; its length is their number.
 */
const excepted = (f: Fn): boolean => f.describeCallback || EXCEPTIONS.some((e) => e.file === f.file && (f.name === e.fn || f.within.includes(e.fn)));

const rel = (file: string): string => path.relative(ROOT, file).split(path.sep).join('/');

function sourceFiles(): string[] {
  const dir = path.join(ROOT, 'src');
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(dir, f))
    .sort();
}

/** Lines as `wc -l` counts them. */
function lineCount(text: string): number {
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

type FunctionNode = ts.FunctionLikeDeclaration;

function isFunction(node: ts.Node): node is FunctionNode {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isArrowFunction(node) ||
    ts.isFunctionExpression(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

function nameOf(node: FunctionNode, within: readonly string[]): string {
  const owner = ts.isClassLike(node.parent) ? `${node.parent.name?.text ?? '(class)'}.` : '';
  if (ts.isConstructorDeclaration(node)) return `${owner}constructor`;
  if (node.name) return owner + node.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) {
    return (ts.isPropertyDeclaration(parent) && ts.isClassLike(parent.parent) ? `${parent.parent.name?.text ?? '(class)'}.` : '') + parent.name.getText();
  }
  if (ts.isCallExpression(parent) || ts.isNewExpression(parent)) {
    const first = parent.arguments?.[0];
    const label = first && ts.isStringLiteralLike(first) ? `('${first.text}')` : '(…)';
    return `callback of ${ts.isNewExpression(parent) ? 'new ' : ''}${parent.expression.getText()}${label}`;
  }
  if (isFunction(parent)) return `function returned by ${within[within.length - 1] ?? '(anonymous)'}`;
  return '(anonymous)';
}

function isDescribeCallback(node: FunctionNode): boolean {
  const parent = node.parent;
  if (!ts.isCallExpression(parent) || !parent.arguments.some((a) => a === node)) return false;
  const callee = parent.expression.getText();
  return callee === 'describe' || callee.startsWith('describe.');
}

function functionsOf(file: string, text: string): Fn[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const lineOf = (pos: number): number => source.getLineAndCharacterOfPosition(pos).line + 1;
  const found: Fn[] = [];
  const visit = (node: ts.Node, within: string[]): void => {
    let inner = within;
    if (isFunction(node)) {
      const name = nameOf(node, within);
      const line = lineOf(node.getStart(source));
      found.push({
        file: rel(file),
        line,
        lines: lineOf(node.getEnd()) - line + 1,
        name,
        within,
        describeCallback: file.endsWith('.test.ts') && isDescribeCallback(node),
      });
      inner = [...within, name];
    }
    ts.forEachChild(node, (child) => visit(child, inner));
  };
  visit(source, []);
  return found;
}

const files = sourceFiles().map((file) => ({ file: rel(file), text: readFileSync(file, 'utf8') }));
const functions = files.flatMap(({ file, text }) => functionsOf(path.join(ROOT, file), text));

describe('sizes in src/ (docs/architecture.md, "Sizes")', () => {
  it('reads every TypeScript file of src/', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(functions.length).toBeGreaterThan(1000);
  });

  it(`has no file over ${MAX_FILE_LINES} lines`, () => {
    const over = files.map(({ file, text }) => ({ file, lines: lineCount(text) })).filter((f) => f.lines > MAX_FILE_LINES);
    expect(over.map((f) => `${f.file}: ${f.lines} lines`)).toEqual([]);
  });

  it(`has no function over ${MAX_FUNCTION_LINES} lines but the exceptions docs/architecture.md explains`, () => {
    const over = functions.filter((f) => f.lines > MAX_FUNCTION_LINES && !excepted(f));
    expect(over.map((f) => `${f.file}:${f.line} ${f.name}: ${f.lines} lines`)).toEqual([]);
  });

  it('keeps no exception that is not needed, and none that docs/architecture.md does not explain', () => {
    const sizes = /\n## Sizes\n([\s\S]*?)(?=\n## |$)/.exec(readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8'))?.[1] ?? '';
    expect(sizes, 'docs/architecture.md has a "Sizes" section').not.toBe('');
    for (const e of EXCEPTIONS) {
      const needed = functions.some((f) => f.file === e.file && f.name === e.fn && f.lines > MAX_FUNCTION_LINES);
      expect(needed, `${e.file} ${e.fn} is within the rule now: remove its exception`).toBe(true);
      expect(sizes.includes(e.file), `the "Sizes" section of docs/architecture.md names ${e.file}`).toBe(true);
    }
  });
});
