#!/usr/bin/env node
// The `delegate` launcher: registers tsx so the CLI runs from its TypeScript sources.
import { register } from 'tsx/esm/api';

register();
await import('./main.ts');
