/** The messages between {@link openEmbeddedStoreThread} and its worker (`store-thread-worker.ts`). */
import { RuntimeError, SemanticMiddlewareError, StoreError, ValueError } from '../errors.js';
import type { LoadOptions } from './triple-store.js';

/** What the worker opens its store with: the options that can cross threads. */
export interface ThreadStoreOptions {
  dataDir?: string;
  compactAfterBytes?: number;
}

export type ThreadRequest = { id: number } & (
  | { method: 'select' | 'ask' | 'update'; text: string }
  | { method: 'conditionalUpdate'; text: string; before: string; after: string }
  | { method: 'load'; text: string; options: Omit<LoadOptions, 'onProgress'> }
  | { method: 'dump'; options: { graph?: string } }
  | { method: 'close' }
);

/** An error as it crosses threads: enough to rebuild it as the class it was. */
export interface ErrorShape {
  code?: string;
  message: string;
  endpoint?: string;
  httpStatus?: number;
}

export type ThreadAnswer =
  | { ready: string }
  | { failed: ErrorShape }
  | { log: 'info' | 'warn' | 'error'; obj: object; msg: string }
  | { id: number; value?: unknown; error?: ErrorShape; requests: number };

export function errorShape(error: unknown): ErrorShape {
  if (!(error instanceof Error)) return { message: String(error) };
  const { code, endpoint, httpStatus } = error as Partial<StoreError>;
  return {
    message: error.message,
    ...(typeof code === 'string' && { code }),
    ...(endpoint !== undefined && { endpoint }),
    ...(httpStatus !== undefined && { httpStatus }),
  };
}

/** The error the worker threw, as its class (the ones the embedded store throws); anything else as a StoreError. */
export function rebuildError(shape: ErrorShape): SemanticMiddlewareError {
  if (shape.code === 'SM_VALUE') return new ValueError(shape.message);
  if (shape.code === 'SM_RUNTIME') return new RuntimeError(shape.message);
  return new StoreError(shape.message, shape.endpoint, shape.httpStatus);
}
