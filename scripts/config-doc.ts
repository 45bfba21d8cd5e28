// Writes docs/configuration.md from the configuration's schemas: npx tsx scripts/config-doc.ts
import { writeFileSync } from 'node:fs';
import { configSchema } from '../src/core/config/index.js';
import { renderConfigDoc } from '../src/core/config/docs.js';
import { configSections } from '../src/main.js';

writeFileSync(new URL('../docs/configuration.md', import.meta.url), renderConfigDoc(configSchema(configSections())));
