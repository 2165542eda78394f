/** `npm run docs:config`: writes docs/reference/configuration.md from the configuration schema. */
import { writeFileSync } from 'node:fs';
import { CONFIG_REFERENCE_PATH, renderConfigReference, undescribedVariables } from './config-reference';

const missing = undescribedVariables();
if (missing.length) {
  console.error(`describe these variables in their area's module of schemas/env/ first: ${missing.join(', ')}`);
  process.exit(1);
}
writeFileSync(CONFIG_REFERENCE_PATH, renderConfigReference());
console.log(`wrote ${CONFIG_REFERENCE_PATH}`);
