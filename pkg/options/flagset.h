#pragma once
// Command-line flags in pflag's syntax: --name=value, --name value, --bool-flag,
// --bool-flag=false, -v=N / -v N, -h. Every error is collected, not only the first.

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "pkg/util/duration.h"

namespace options {

class FlagSet {
 public:
  explicit FlagSet(std::string program) : program_(std::move(program)) {}

  // Flags registered after this call are listed under title in Usage().
  void Section(std::string title);
  void String(const std::string& name, std::string* target, std::string usage);
  // Comma-separated; repeating the flag appends.
  void StringList(const std::string& name, std::vector<std::string>* target, std::string usage);
  // One key=value per occurrence, split at the first '=', both sides trimmed (component-base's
  // MapStringStringNoSplit): commas are part of the value.
  void StringMap(const std::string& name, std::map<std::string, std::string>* target,
                 std::string usage);
  void Int(const std::string& name, int* target, std::string usage);
  void Bool(const std::string& name, bool* target, std::string usage);
  // pflag's float32 (client QPS).
  void Float(const std::string& name, double* target, std::string usage);
  void Duration(const std::string& name, util::Duration* target, std::string usage);
  // A one-letter alias: "-v" for "v".
  void Shorthand(char letter, const std::string& name);

  // Sets the targets; returns every error (unknown flags, missing or bad values,
  // arguments that are not flags).
  std::vector<std::string> Parse(const std::vector<std::string>& args);
  bool Changed(const std::string& name) const { return changed_.contains(name); }
  std::string Usage() const;

 private:
  struct Flag {
    std::string name;
    std::string type;  // shown in usage: string, strings, int, bool, duration
    std::string usage;
    std::string default_text;
    bool is_bool = false;
    std::function<std::string(const std::string&)> set;  // returns an error or ""
  };
  void Add(Flag flag);

  std::string program_;
  std::string section_;
  std::vector<std::pair<std::string, std::vector<std::string>>> sections_;
  std::map<std::string, Flag> flags_;
  std::map<char, std::string> shorthands_;
  std::map<std::string, bool> changed_;
};

}  // namespace options
