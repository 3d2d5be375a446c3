// How the SQL store lays out values that are not plain columns: a list of byte strings as one
// BLOB of NUL-terminated elements, an environment keyed by a hex FNV-1a 64 digest of that BLOB,
// and a list of integers (exit codes) as decimal text separated by commas. All are persistent
// formats (old databases hold them): never change them, add a migration instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tq::sql {

/// Each element followed by a NUL byte: an empty element survives, no elements is "".
std::string EncodeList(const std::vector<std::string>& items);

/// The inverse of EncodeList into `out`; false when `blob` does not end with a NUL.
bool DecodeList(std::string_view blob, std::vector<std::string>* out);

/// The index of the first element holding a NUL byte, which EncodeList cannot carry.
std::optional<size_t> FirstWithNul(const std::vector<std::string>& items);

/// The integers in decimal, separated by commas ("75,-1"); no integers is "".
std::string EncodeInts(const std::vector<int>& values);

/// The inverse of EncodeInts into `out`; false on anything else (spaces, empty elements, values
/// outside int).
bool DecodeInts(std::string_view text, std::vector<int>* out);

/// FNV-1a 64 of `data`; a non-zero `salt` is mixed in first (after a collision).
uint64_t Fnv1a64(std::string_view data, uint64_t salt = 0);

/// The envs key of an encoded environment: Fnv1a64 as 16 lower-case hex digits.
std::string EnvKey(std::string_view data, uint64_t salt = 0);

}  // namespace tq::sql
