export * from './budget';
export * from './evidence';
export * from './job';
export * from './result';
export * from './agent';
export * from './status';
export * from './errors';
export * from './config';
