import { applyHeapFlags } from '../heap-flags.js';

// The poll worker's entry (worker/thread.ts starts it). Creating a thread's isolate makes V8 enforce
// its flag implications again, for the whole process: the young generation's growth factor goes back
// to 2, and the serving thread's and this thread's young generations would grow to 32 MB. So the
// program's heap settings (heap-flags.ts, as main.ts applies them) are applied again here, before the
// rest of the worker loads and allocates.
applyHeapFlags();

await import('./worker-main.js');
