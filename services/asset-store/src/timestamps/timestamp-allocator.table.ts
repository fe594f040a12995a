/** `timestamp_allocator`: the one row holding the last timestamp issued (see its migration). */
export interface TimestampAllocatorTable {
  id: boolean;
  last_issued: number;
}
