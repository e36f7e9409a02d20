#!/usr/bin/env node
/*
 * JavaScript/TypeScript call edges from the TypeScript compiler: the reference for the
 * code graph's JS/TS edges (#22).
 *
 *     node benchmarks/graph_reference/ts_compiler.js CORPUS_ROOT OUT.json [--under lib]
 *         [--corpus NAME]
 *
 * One Program (allowJs, noEmit, moduleResolution bundler) over the .js/.jsx/.mjs/.cjs/
 * .ts/.tsx/.mts/.cts files under CORPUS_ROOT/UNDER (no .d.ts, node_modules/ or dist/).
 * Each CallExpression and NewExpression is a call site; its callee name (the identifier,
 * the property name of `a.b.f()`, the string of `a["f"]()`) is resolved with
 * TypeChecker.getSymbolAtLocation, aliases followed (imports, re-exports, require), and
 * then through the value a name is bound to: `{ f }`, `{ f: g }`, `const f = g`,
 * `exports.f = g`. A declaration with a body in the analysed files is an edge.
 *
 * Rules (see reference.py for the format):
 * - `new C()` and `C()` on a class are edges to the class, not its constructor.
 * - callee_start_line is where the definition starts without its decorators and
 *   comments: `function`, `class`, a method's modifiers or name, the name `f` in
 *   `const f = () => ...`, the `a.f` of `a.f = function () {}`.
 * - A name bound only to a signature (an interface member, an overload, a parameter
 *   of function type) is "non-definition"; no symbol (an `any` receiver, a package
 *   that is not installed) is "unresolved"; no name at all is "no-name". A callee
 *   declared outside the analysed files (lib.d.ts, @types/node) is judged, no edge.
 */
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const ts = require('typescript');

const SOURCE = /\.(js|jsx|mjs|cjs|ts|tsx|mts|cts)$/;
const SKIP_DIRS = new Set(['node_modules', 'dist', '.git']);

function main(argv) {
  const args = parseArgs(argv);
  const started = process.hrtime.bigint();
  const root = fs.realpathSync(args.root);
  const files = sourceFiles(path.join(root, args.under || '.'));
  const program = ts.createProgram(files, compilerOptions());
  const edges = [];
  const unresolved = [];
  const scope = new Set(files);
  for (const file of files) {
    const walker = { checker: program.getTypeChecker(), root, scope, edges, unresolved };
    visit(walker, program.getSourceFile(file));
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const meta = {
    corpus: args.corpus || path.basename(root),
    language: files.some((file) => /\.[cm]?tsx?$/.test(file)) ? 'typescript' : 'javascript',
    oracle: 'ts_compiler.js',
    tools: { typescript: ts.version, node: process.versions.node },
    under: args.under || '.',
    seconds: Math.round(seconds * 10) / 10,
  };
  const relative = files.map((file) => posix(path.relative(root, file)));
  const counts = dump({ meta, files: relative, edges, unresolved }, args.out);
  console.log(`${meta.corpus}: ${counts.edges} edges, ${counts.unresolved} unresolved sites, `
    + `${files.length} files, ${meta.seconds} s`);
}

function parseArgs(argv) {
  const args = { positional: [] };
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--under' || argv[i] === '--corpus') {
      args[argv[i].slice(2)] = argv[i + 1];
      i += 1;
    } else {
      args.positional.push(argv[i]);
    }
  }
  if (args.positional.length !== 2) {
    console.error('usage: ts_compiler.js CORPUS_ROOT OUT.json [--under DIR] [--corpus NAME]');
    process.exit(2);
  }
  [args.root, args.out] = args.positional;
  return args;
}

function sourceFiles(dir) {
  const found = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && !SKIP_DIRS.has(entry.name)) {
      found.push(...sourceFiles(full));
    } else if (entry.isFile() && SOURCE.test(entry.name) && !/\.d\.[cm]?ts$/.test(entry.name)) {
      found.push(full);
    }
  }
  return found.sort();
}

function compilerOptions() {
  // @types/node from this folder's node_modules, so Node's modules are judged external.
  return {
    allowJs: true,
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2022,
    typeRoots: [path.join(__dirname, 'node_modules', '@types')],
    types: ['node'],
  };
}

function visit(walker, node) {
  if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
    site(walker, node);
  }
  ts.forEachChild(node, (child) => visit(walker, child));
}

function site(walker, call) {
  if (call.expression.kind === ts.SyntaxKind.ImportKeyword) {
    return; // import("x") loads a module; it calls nothing in it
  }
  const sourceFile = call.getSourceFile();
  const caller = posix(path.relative(walker.root, sourceFile.fileName));
  const line = lineOf(sourceFile, call.expression.end);
  const name = calleeName(call.expression);
  if (!name) {
    walker.unresolved.push({ caller_path: caller, call_line: line, callee_name: '', reason: 'no-name' });
    return;
  }
  const label = name.text || name.getText(sourceFile);
  const { definitions, reason } = resolve(walker, name);
  for (const definition of definitions) {
    walker.edges.push({
      caller_path: caller,
      call_line: line,
      callee_path: posix(path.relative(walker.root, definition.getSourceFile().fileName)),
      callee_start_line: startLine(definition),
      callee_name: label,
    });
  }
  if (reason) {
    walker.unresolved.push({ caller_path: caller, call_line: line, callee_name: label, reason });
  }
}

function calleeName(expression) {
  let node = expression;
  while (ts.isParenthesizedExpression(node) || ts.isNonNullExpression(node)
    || ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) {
    node = node.expression;
  }
  if (ts.isIdentifier(node) || node.kind === ts.SyntaxKind.SuperKeyword) {
    return node;
  }
  if (ts.isPropertyAccessExpression(node)) {
    return node.name;
  }
  if (ts.isElementAccessExpression(node) && ts.isStringLiteralLike(node.argumentExpression)) {
    return node.argumentExpression;
  }
  return null;
}

function resolve(walker, name) {
  const symbol = walker.checker.getSymbolAtLocation(name);
  if (!symbol) {
    return { definitions: [], reason: 'unresolved' };
  }
  const declarations = [];
  const definitions = [...new Set(definitionsOf(walker.checker, symbol, 0, declarations))]
    .filter((node) => walker.scope.has(node.getSourceFile().fileName));
  if (definitions.length > 0) {
    return { definitions, reason: '' };
  }
  const local = declarations.some((node) => walker.scope.has(node.getSourceFile().fileName));
  return { definitions: [], reason: local ? 'non-definition' : '' };
}

// The declarations with a body that `symbol` stands for. The declarations that end a
// search without one (a signature, a parameter, `const f = make()`) are pushed on
// `seen`, so that the caller can tell a local signature from a foreign one.
function definitionsOf(checker, symbol, depth, seen) {
  if (!symbol || depth > 8) {
    return [];
  }
  let target = symbol;
  if (target.flags & ts.SymbolFlags.Alias) {
    target = checker.getAliasedSymbol(target);
  }
  const found = [];
  for (const declaration of target.declarations || []) {
    if (hasBody(declaration)) {
      found.push(declaration);
    } else if (ts.isShorthandPropertyAssignment(declaration)) {
      const value = checker.getShorthandAssignmentValueSymbol(declaration);
      found.push(...definitionsOf(checker, value, depth + 1, seen));
    } else {
      found.push(...boundValue(checker, declaration, depth, seen));
    }
  }
  return found;
}

function boundValue(checker, declaration, depth, seen) {
  const value = skipParentheses(initializer(declaration));
  if (value && (ts.isFunctionExpression(value) || ts.isArrowFunction(value)
    || ts.isClassExpression(value))) {
    return [declaration];
  }
  const forwarded = value && (ts.isIdentifier(value) || ts.isPropertyAccessExpression(value))
    ? checker.getSymbolAtLocation(value) : undefined;
  if (forwarded) {
    return definitionsOf(checker, forwarded, depth + 1, seen);
  }
  seen.push(declaration);
  return [];
}

function initializer(declaration) {
  if (ts.isVariableDeclaration(declaration) || ts.isPropertyAssignment(declaration)
    || ts.isPropertyDeclaration(declaration)) {
    return declaration.initializer;
  }
  if (ts.isBinaryExpression(declaration)) {
    return declaration.right; // a JS assignment declaration: `exports.f = ...`
  }
  const parent = declaration.parent;
  if (parent && ts.isBinaryExpression(parent) && parent.left === declaration) {
    return parent.right;
  }
  if (ts.isExportAssignment(declaration)) {
    return declaration.expression;
  }
  return undefined;
}

function hasBody(node) {
  if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) {
    return true;
  }
  const functionLike = ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)
    || ts.isConstructorDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node)
    || ts.isFunctionExpression(node);
  return functionLike && node.body !== undefined;
}

function skipParentheses(node) {
  let inner = node;
  while (inner && ts.isParenthesizedExpression(inner)) {
    inner = inner.expression;
  }
  return inner;
}

function startLine(declaration) {
  const sourceFile = declaration.getSourceFile();
  let start = declaration.getStart(sourceFile);
  const decorators = ts.canHaveDecorators(declaration) ? ts.getDecorators(declaration) : undefined;
  if (decorators && decorators.length > 0) {
    start = ts.skipTrivia(sourceFile.text, decorators[decorators.length - 1].end);
  }
  return lineOf(sourceFile, start);
}

function lineOf(sourceFile, position) {
  return sourceFile.getLineAndCharacterOfPosition(position).line + 1;
}

function posix(relative) {
  return relative.split(path.sep).join('/');
}

// The layout of reference.py's dump(): sorted, deduplicated, one row per line.
function dump(reference, out) {
  const edges = unique(reference.edges, ['caller_path', 'call_line', 'callee_path',
    'callee_start_line', 'callee_name']);
  const unresolved = unique(reference.unresolved, ['caller_path', 'call_line', 'callee_name',
    'reason']);
  const text = ['{',
    `"meta": ${JSON.stringify(sortKeys(reference.meta))},`,
    `"files": ${JSON.stringify([...new Set(reference.files)].sort())},`,
    '"edges": [', edges.join(',\n'), '],',
    '"unresolved": [', unresolved.join(',\n'), ']',
    '}'].join('\n') + '\n';
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, out.endsWith('.gz') ? zlib.gzipSync(text) : text);
  return { edges: edges.length, unresolved: unresolved.length };
}

function unique(rows, keys) {
  const compare = (a, b) => {
    for (const key of keys) {
      if (a[key] !== b[key]) {
        return a[key] < b[key] ? -1 : 1;
      }
    }
    return 0;
  };
  const lines = rows.slice().sort(compare)
    .map((row) => JSON.stringify(Object.fromEntries(keys.map((key) => [key, row[key]]))));
  return [...new Set(lines)];
}

function sortKeys(object) {
  if (typeof object !== 'object' || object === null) {
    return object;
  }
  return Object.fromEntries(Object.keys(object).sort().map((key) => [key, sortKeys(object[key])]));
}

main(process.argv.slice(2));
