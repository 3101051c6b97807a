/** Every value `deepFreeze` returned (the top object): nothing inside it can change any more. */
const deeplyFrozen = new WeakSet<object>();

/**
 * `value` and every object inside it, frozen (plain JSON data: no cycles), and remembered as such. For
 * answers shared by every reader (a kept rate): none can change another's, and their JSON text may be
 * written once (the gateway's reply).
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  for (const inner of Object.values(value)) deepFreeze(inner);
  Object.freeze(value);
  deeplyFrozen.add(value);
  return value;
}

/**
 * Whether `value` came out of `deepFreeze`. Not `Object.isFrozen`, which says nothing of what the object
 * holds: a shallowly frozen answer could still change inside.
 */
export const isDeeplyFrozen = (value: unknown): value is object =>
  typeof value === "object" && value !== null && deeplyFrozen.has(value);
