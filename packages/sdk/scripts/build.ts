// Builds the publishable package into dist/: one ES module (the contract's webhook signing bundled in,
// nothing else needed at run time), declarations whose contract types are spelled out in full (no
// import of this repository's contracts or of zod), and a package.json with `exports` to both.
// `npm pack ./dist` (or `pnpm --filter @ramp/sdk package`) then makes the tarball an integrator installs.
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { build } from "esbuild";
import ts from "typescript";

const root = join(import.meta.dirname, "..");
const src = join(root, "src");
/** dist/ unless given a folder (a test builds into one of its own). */
const out = resolve(process.argv[2] ?? join(root, "dist"));
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  name: string;
  version: string;
  description?: string;
};

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

await build({
  entryPoints: [join(src, "published.ts")],
  outfile: join(out, "index.js"),
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  legalComments: "none",
  logLevel: "warning",
});
const bundled = readFileSync(join(out, "index.js"), "utf8");
// Only Node's own modules may be imported at run time: the package has no dependencies.
const imports = [...bundled.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1] ?? "");
const foreign = imports.filter((m) => !m.startsWith("node:"));
if (foreign.length > 0) throw new Error(`the bundle still imports ${foreign.join(", ")}`);

const options: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  lib: ["lib.es2023.d.ts"],
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  skipLibCheck: true,
  types: ["node"],
  allowImportingTsExtensions: true,
  rewriteRelativeImportExtensions: true,
  declaration: true,
  emitDeclarationOnly: true,
  rootDir: src,
  outDir: out,
};
const program = ts.createProgram([join(src, "published.ts")], options);
const errors = ts.getPreEmitDiagnostics(program);
if (errors.length > 0) {
  const host = {
    getCanonicalFileName: (f: string) => f,
    getCurrentDirectory: () => root,
    getNewLine: () => "\n",
  };
  throw new Error(ts.formatDiagnostics(errors, host));
}

/** src/types.ts with every alias spelled out: the shapes as the checker resolves them. */
function expandedTypes(): string {
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(join(src, "types.ts"));
  if (!file) throw new Error("src/types.ts is not part of the program");
  const printer = ts.createPrinter({ removeComments: false });
  const flags =
    ts.NodeBuilderFlags.NoTruncation |
    ts.NodeBuilderFlags.InTypeAlias |
    ts.NodeBuilderFlags.MultilineObjectLiterals |
    ts.NodeBuilderFlags.IgnoreErrors;
  const parts = ["// Generated from the API contract by scripts/build.ts.\n"];
  for (const statement of file.statements) {
    if (!ts.isTypeAliasDeclaration(statement)) continue;
    if (!statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
    const node = checker.typeToTypeNode(checker.getTypeFromTypeNode(statement.type), undefined, flags);
    if (!node) throw new Error(`cannot spell out ${statement.name.text}`);
    const alias = ts.factory.createTypeAliasDeclaration(
      [ts.factory.createModifier(ts.SyntaxKind.ExportKeyword)],
      statement.name.text,
      undefined,
      node,
    );
    const doc = ts.getJSDocCommentsAndTags(statement).map((d) => `${d.getText(file)}\n`);
    parts.push(...doc, `${printer.printNode(ts.EmitHint.Unspecified, alias, file)}\n`);
  }
  const text = parts.join("");
  if (/\bimport\(|\bz\.|\bzod\b|@ramp\//.test(text))
    throw new Error("types.d.ts still refers to the contract");
  return text;
}

program.emit(undefined, (file, text) => {
  const name = relative(out, file);
  mkdirSync(dirname(file), { recursive: true });
  // Declarations keep the sources' `./x.ts` specifiers; the files beside them are `./x.d.ts`.
  const declared = text.replace(/(from ["']\.{1,2}\/[^"']+)\.ts(["'])/g, "$1.js$2");
  // The published entry is the package's index.
  const target = name === "published.d.ts" ? join(out, "index.d.ts") : file;
  writeFileSync(target, name === "types.d.ts" ? expandedTypes() : declared);
});

writeFileSync(
  join(out, "package.json"),
  `${JSON.stringify(
    {
      name: manifest.name,
      version: manifest.version,
      description: manifest.description,
      type: "module",
      engines: { node: ">=20.19" },
      exports: { ".": { types: "./index.d.ts", import: "./index.js" } },
      types: "./index.d.ts",
      files: ["*.js", "*.d.ts", "README.md"],
      sideEffects: false,
    },
    null,
    2,
  )}\n`,
);
cpSync(join(root, "README.md"), join(out, "README.md"));
process.stderr.write(`[sdk] built ${relative(process.cwd(), out)}\n`);
