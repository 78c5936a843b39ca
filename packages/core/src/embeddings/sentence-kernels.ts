/**
 * TensorFlow.js WASM kernels where the sentence encoder's forward pass lost most of its time, replaced
 * by ones computing the same values faster (sentenceEncoder() installs them when it loads the model).
 *
 * SplitV: the backend's kernel (`@energetic-ai/core`, tfjs-backend-wasm's splitV) slices each part
 * out of `backend.readSync(x)`, a fresh copy of the whole input, once per part. The encoder splits
 * its query/key/value projection ([tokens, 1536] into 3 x 512) in each of its two layers, so a batch
 * of 35 knowledge chunks (4,480 tokens) copied 6 x 27 MB into new ArrayBuffers: about a third of the
 * encoder's CPU time went to those copies and the garbage collection they caused. This kernel
 * allocates the outputs first (allocation can grow and so move the WASM heap), then copies each
 * part straight from a view of the heap.
 *
 * BatchMatMul of many small matrices (attention: [chunks, 4 heads, 128, 64] x [.., 64, 128] and
 * the like, 8 per forward pass): the backend runs a batch of matrices through its own loops at about
 * 3 GFLOPS, while a single matrix goes to XNNPACK at 8-15 GFLOPS. This kernel multiplies each matrix
 * of the batch as a single one (transposes done while copying it out), through the backend's own
 * kernel. Dense layers (one matrix) and broadcast batches go to the backend's kernel unchanged.
 *
 * SplitV gives the same values, element for element; the matrix products differ from the batched
 * loop's in the last bits (another summation order): sentence vectors within 1e-6 of the library's
 * (packages/core/test/sentence-kernels.test.ts), far below any difference a ranking can see, so
 * stored vectors stay valid and the model id is unchanged.
 */

/** The parts of tfjs-core (re-exported by `@energetic-ai/core`) this module uses. */
interface TfCore {
  getKernel(name: string, backend: string): { kernelFunc: KernelFunc } | undefined;
  unregisterKernel(name: string, backend: string): void;
  registerKernel(config: { kernelName: string; backendName: string; kernelFunc: KernelFunc }): void;
  util: { parseAxisParam(axis: number | number[], shape: number[]): number[] };
  backend_util: { prepareSplitSize(x: TensorInfo, numOrSizeSplits: number[] | number, axis: number): number[] };
}

interface TensorInfo {
  dataId: object;
  shape: number[];
  dtype: string;
}

interface WasmBackend {
  makeOutput(shape: number[], dtype: string): TensorInfo;
  typedArrayFromHeap(t: TensorInfo): Float32Array | Int32Array | Uint8Array;
  disposeData(dataId: object, force?: boolean): boolean;
}

type KernelFunc = (args: {
  inputs: Record<string, TensorInfo>;
  attrs: Record<string, unknown>;
  backend: WasmBackend;
}) => TensorInfo | TensorInfo[];

const BACKEND = 'wasm';

/** SplitV without copying the input per part; other dtypes (strings) go to the backend's kernel. */
export function splitVKernel(tf: TfCore, original: KernelFunc): KernelFunc {
  return (args) => {
    const x = args.inputs.x as TensorInfo;
    if (x.dtype !== 'float32' && x.dtype !== 'int32' && x.dtype !== 'bool') return original(args);
    const axis = tf.util.parseAxisParam(args.attrs.axis as number, x.shape)[0] as number;
    const sizes = tf.backend_util.prepareSplitSize(x, args.attrs.numOrSizeSplits as number[] | number, axis);
    const outputs = sizes.map((s) => {
      const shape = x.shape.slice();
      shape[axis] = s;
      return args.backend.makeOutput(shape, x.dtype);
    });
    // Views taken after every allocation: an allocation may grow the heap and detach earlier views.
    const src = args.backend.typedArrayFromHeap(x);
    let outer = 1;
    for (let d = 0; d < axis; d++) outer *= x.shape[d] as number;
    let inner = 1;
    for (let d = axis + 1; d < x.shape.length; d++) inner *= x.shape[d] as number;
    const rowLength = (x.shape[axis] as number) * inner;
    let offset = 0;
    outputs.forEach((out, k) => {
      const part = (sizes[k] as number) * inner;
      const dst = args.backend.typedArrayFromHeap(out);
      for (let row = 0; row < outer; row++) {
        const from = row * rowLength + offset;
        dst.set(src.subarray(from, from + part), row * part);
      }
      offset += part;
    });
    return outputs;
  };
}

/** Copies an r x c matrix from src at `from` into dst (at 0), transposed when `transpose`. */
function copyMatrix(src: Float32Array, from: number, rows: number, cols: number, dst: Float32Array, transpose: boolean) {
  if (!transpose) {
    dst.set(src.subarray(from, from + rows * cols));
    return;
  }
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) dst[c * rows + r] = src[from + r * cols + c] as number;
}

/** BatchMatMul of a batch of float32 matrices as one product per matrix; other cases go to the backend's kernel. */
export function batchMatMulKernel(original: KernelFunc): KernelFunc {
  return (args) => {
    const a = args.inputs.a as TensorInfo;
    const b = args.inputs.b as TensorInfo;
    const transposeA = Boolean(args.attrs.transposeA);
    const transposeB = Boolean(args.attrs.transposeB);
    const outerA = a.shape.slice(0, -2);
    const outerB = b.shape.slice(0, -2);
    const batch = outerA.reduce((x, y) => x * y, 1);
    const sameOuter = outerA.length === outerB.length && outerA.every((d, i) => d === outerB[i]);
    if (a.dtype !== 'float32' || b.dtype !== 'float32' || batch <= 1 || !sameOuter) return original(args);
    const [ar, ac] = a.shape.slice(-2) as [number, number];
    const [br, bc] = b.shape.slice(-2) as [number, number];
    const m = transposeA ? ac : ar;
    const k = transposeA ? ar : ac;
    const n = transposeB ? br : bc;
    if ((transposeB ? bc : br) !== k) return original(args);
    const out = args.backend.makeOutput([...outerA, m, n], 'float32');
    for (let i = 0; i < batch; i++) {
      // Fresh operands per matrix: the backend's matmul caches a packed copy of its operand by tensor id,
      // so one buffer refilled for every matrix gives stale products (tried; the kernel tests catch it).
      const ai = args.backend.makeOutput([m, k], 'float32');
      const bi = args.backend.makeOutput([k, n], 'float32');
      copyMatrix(
        args.backend.typedArrayFromHeap(a) as Float32Array,
        i * ar * ac,
        ar,
        ac,
        args.backend.typedArrayFromHeap(ai) as Float32Array,
        transposeA,
      );
      copyMatrix(
        args.backend.typedArrayFromHeap(b) as Float32Array,
        i * br * bc,
        br,
        bc,
        args.backend.typedArrayFromHeap(bi) as Float32Array,
        transposeB,
      );
      const r = original({
        inputs: { a: ai, b: bi },
        attrs: { transposeA: false, transposeB: false },
        backend: args.backend,
      }) as TensorInfo;
      (args.backend.typedArrayFromHeap(out) as Float32Array).set(args.backend.typedArrayFromHeap(r) as Float32Array, i * m * n);
      args.backend.disposeData(r.dataId, true);
      args.backend.disposeData(ai.dataId, true);
      args.backend.disposeData(bi.dataId, true);
    }
    return out;
  };
}

const REPLACEMENTS: [string, (tf: TfCore, original: KernelFunc) => KernelFunc][] = [
  ['SplitV', splitVKernel],
  ['BatchMatMul', (_tf, original) => batchMatMulKernel(original)],
];

/** The backend's own kernels, kept while ours are registered. */
const originals = new Map<string, KernelFunc>();

/**
 * Registers this module's SplitV and BatchMatMul kernels for the WASM backend (on = true; again is a
 * no-op) or puts the backend's own back (on = false: tests compare the two).
 */
export function useSentenceKernels(tf: TfCore, on = true): void {
  for (const [name, make] of REPLACEMENTS) {
    const current = tf.getKernel(name, BACKEND);
    if (!current) continue;
    const original = originals.get(name);
    if (on === Boolean(original)) continue;
    const kernelFunc = on ? make(tf, current.kernelFunc) : (original as KernelFunc);
    if (on) originals.set(name, current.kernelFunc);
    else originals.delete(name);
    tf.unregisterKernel(name, BACKEND);
    tf.registerKernel({ kernelName: name, backendName: BACKEND, kernelFunc });
  }
}
