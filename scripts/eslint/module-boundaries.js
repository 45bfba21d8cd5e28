// ESLint rule: a feature module reaches another module only through its public surface, index.ts or
// contracts.ts (ARCHITECTURE.md, "Layout"); inner files stay free to change.
import path from 'node:path';

const MODULE = /[/\\]src[/\\]modules[/\\]([^/\\]+)[/\\](.+)$/;

export default {
  meta: {
    type: 'problem',
    docs: { description: "import another module only through its index.ts or contracts.ts" },
    messages: { inner: "Import {{module}}'s public surface ({{module}}/index.js or {{module}}/contracts.js), not {{file}}" },
    schema: [],
  },
  create(context) {
    const here = MODULE.exec(context.filename);
    if (!here) return {};
    const check = (node) => {
      const spec = node.source?.value;
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const there = MODULE.exec(path.resolve(path.dirname(context.filename), spec));
      if (!there || there[1] === here[1]) return;
      if (/^(index|contracts)\.js$/.test(there[2])) return;
      context.report({ node: node.source, messageId: 'inner', data: { module: there[1], file: `${there[1]}/${there[2]}` } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};
