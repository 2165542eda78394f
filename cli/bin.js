#!/usr/bin/env node
// The `delegate` launcher: registers tsx so the CLI runs from its TypeScript sources. It runs from any
// folder (an agent harness starts `delegate mcp` from its own): tsx and the sources resolve from this
// file, and tsx reads this checkout's tsconfig, not one that happens to be in the current folder.
import { fileURLToPath, URL } from 'node:url';
import { register } from 'tsx/esm/api';

register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
await import('./main.ts');
