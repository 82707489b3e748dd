// Conformance tests expected to fail, grouped by reason. The runner runs
// them too and fails if one starts passing, so this list only shrinks.
// Tests that need protobuf messages (proto2/proto3 suites, wrappers, Any,
// Struct, enums) are out of scope and filtered out before running.

export const expectedFailures: Record<string, string[]> = {
  // cel.block / cel.index / cel.iterVar are cel-go optimizer output, not source syntax Kubernetes accepts
  'cel.block is not implemented': [
    "block_ext/basic/int_add",
    "block_ext/basic/size_1",
    "block_ext/basic/size_2",
    "block_ext/basic/size_3",
    "block_ext/basic/size_4",
    "block_ext/basic/timestamp",
    "block_ext/basic/map_index",
    "block_ext/basic/nested_map_construction",
    "block_ext/basic/nested_list_construction",
    "block_ext/basic/multiple_macros_1",
    "block_ext/basic/multiple_macros_2",
    "block_ext/basic/multiple_macros_3",
    "block_ext/basic/nested_macros_1",
    "block_ext/basic/nested_macros_2",
    "block_ext/basic/adjacent_macros",
    "block_ext/basic/macro_shadowed_variable_1",
    "block_ext/basic/macro_shadowed_variable_2",
    "block_ext/basic/inclusion_list",
    "block_ext/basic/inclusion_map",
    "block_ext/basic/presence_test",
    "block_ext/basic/presence_test_2",
    "block_ext/basic/optional_list",
    "block_ext/basic/optional_map",
    "block_ext/basic/optional_map_chained",
    "block_ext/basic/call",
  ],
  // message construction written with whitespace between name parts escapes the protobuf filter
  'needs protobuf message types': [
    "parse/whitespace/tabs",
    "parse/whitespace/new_lines",
    "parse/whitespace/new_pages",
    "parse/whitespace/carriage_returns",
    "parse/comments/new_line_terminated",
  ],
};

