package io.smslice.operator.claim;

/**
 * A node's ledger changed under the allocator (another writer placed or moved a slice there): the
 * allocator reads the cluster again and decides anew.
 */
final class LedgerConflict extends RuntimeException {
  LedgerConflict(String message) {
    super(message, null, false, false);
  }
}
