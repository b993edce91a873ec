#include "pkg/options/flagset.h"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <sstream>

#include "pkg/util/strings.h"

namespace options {

void FlagSet::Section(std::string title) {
  section_ = title;
  sections_.emplace_back(std::move(title), std::vector<std::string>{});
}

void FlagSet::Add(Flag flag) {
  if (sections_.empty()) Section("Flags");
  sections_.back().second.push_back(flag.name);
  std::string name = flag.name;
  flags_.emplace(std::move(name), std::move(flag));
}

void FlagSet::String(const std::string& name, std::string* target, std::string usage) {
  Add({name, "string", std::move(usage), target->empty() ? "" : util::Quote(*target), false,
       [target](const std::string& v) {
         *target = v;
         return std::string();
       }});
}

void FlagSet::StringList(const std::string& name, std::vector<std::string>* target,
                         std::string usage) {
  auto replaced = std::make_shared<bool>(false);
  Add({name, "strings", std::move(usage),
       target->empty() ? "" : "[" + util::Join(*target, ",") + "]", false,
       [target, replaced](const std::string& v) {
         if (!*replaced) target->clear();
         *replaced = true;
         if (v.empty()) return std::string();
         for (const std::string& item : util::Split(v, ',')) {
           target->emplace_back(util::TrimSpace(item));
         }
         return std::string();
       }});
}

void FlagSet::StringMap(const std::string& name, std::map<std::string, std::string>* target,
                        std::string usage) {
  Add({name, "mapStringString", std::move(usage), "", false,
       [target](const std::string& v) -> std::string {
         const size_t eq = v.find('=');
         if (eq == std::string::npos) return "malformed pair, expect string=string";
         (*target)[std::string(util::TrimSpace(v.substr(0, eq)))] =
             std::string(util::TrimSpace(v.substr(eq + 1)));
         return "";
       }});
}

void FlagSet::Float(const std::string& name, double* target, std::string usage) {
  std::ostringstream shown;
  shown << *target;
  Add({name, "float32", std::move(usage), shown.str(), false,
       [target](const std::string& v) -> std::string {
         char* end = nullptr;
         errno = 0;
         const double value = std::strtod(v.c_str(), &end);
         if (v.empty() || end != v.c_str() + v.size() ||
             std::isspace(static_cast<unsigned char>(v[0]))) {
           return "strconv.ParseFloat: parsing " + util::Quote(v) + ": invalid syntax";
         }
         if (errno == ERANGE || std::abs(value) > 3.4028234663852886e38) {
           return "strconv.ParseFloat: parsing " + util::Quote(v) + ": value out of range";
         }
         *target = value;
         return "";
       }});
}

void FlagSet::Int(const std::string& name, int* target, std::string usage) {
  Add({name, "int", std::move(usage), std::to_string(*target), false,
       [target](const std::string& v) -> std::string {
         long long value = 0;
         auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), value);
         if (ec == std::errc::result_out_of_range || value > INT_MAX || value < INT_MIN) {
           return "strconv.ParseInt: parsing " + util::Quote(v) + ": value out of range";
         }
         if (ec != std::errc() || ptr != v.data() + v.size() || v.empty()) {
           return "strconv.ParseInt: parsing " + util::Quote(v) + ": invalid syntax";
         }
         *target = static_cast<int>(value);
         return "";
       }});
}

void FlagSet::Bool(const std::string& name, bool* target, std::string usage) {
  Add({name, "", std::move(usage), *target ? "true" : "", true,
       [target](const std::string& v) -> std::string {
         if (v == "1" || v == "t" || v == "T" || v == "true" || v == "TRUE" || v == "True") {
           *target = true;
         } else if (v == "0" || v == "f" || v == "F" || v == "false" || v == "FALSE" ||
                    v == "False") {
           *target = false;
         } else {
           return "strconv.ParseBool: parsing " + util::Quote(v) + ": invalid syntax";
         }
         return "";
       }});
}

void FlagSet::Duration(const std::string& name, util::Duration* target, std::string usage) {
  Add({name, "duration", std::move(usage), util::FormatDuration(*target), false,
       [target](const std::string& v) -> std::string {
         auto d = util::ParseDuration(v);
         if (!d) return d.error();
         *target = *d;
         return "";
       }});
}

void FlagSet::Shorthand(char letter, const std::string& name) { shorthands_[letter] = name; }

std::vector<std::string> FlagSet::Parse(const std::vector<std::string>& args) {
  std::vector<std::string> errors;
  std::vector<std::string> positional;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      positional.insert(positional.end(), args.begin() + static_cast<long>(i) + 1, args.end());
      break;
    }
    std::string name, value;
    bool has_value = false;
    std::string shown;  // how the flag is named in messages
    if (arg.starts_with("--") && arg.size() > 2) {
      std::string body = arg.substr(2);
      size_t eq = body.find('=');
      name = body.substr(0, eq);
      if (eq != std::string::npos) {
        value = body.substr(eq + 1);
        has_value = true;
      }
      shown = "--" + name;
    } else if (arg.size() >= 2 && arg[0] == '-' && arg[1] != '-') {
      auto it = shorthands_.find(arg[1]);
      if (it == shorthands_.end()) {
        errors.push_back("unknown shorthand flag: '" + std::string(1, arg[1]) + "' in " + arg);
        continue;
      }
      name = it->second;
      shown = "-" + std::string(1, arg[1]);
      if (arg.size() > 2) {
        value = arg.substr(arg[2] == '=' ? 3 : 2);
        has_value = true;
      }
    } else {
      positional.push_back(arg);
      continue;
    }
    auto it = flags_.find(name);
    if (it == flags_.end()) {
      errors.push_back("unknown flag: " + shown);
      continue;
    }
    Flag& flag = it->second;
    if (!has_value) {
      if (flag.is_bool) {
        value = "true";
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        errors.push_back("flag needs an argument: " + shown);
        continue;
      }
    }
    if (std::string err = flag.set(value); !err.empty()) {
      errors.push_back("invalid argument " + util::Quote(value) + " for " + util::Quote(shown) +
                       " flag: " + err);
      continue;
    }
    changed_[name] = true;
  }
  if (!positional.empty()) {
    std::vector<std::string> quoted;
    for (const std::string& p : positional) quoted.push_back(util::Quote(p));
    errors.push_back(util::Quote(program_) + " does not take any arguments, got [" +
                     util::Join(quoted, " ") + "]");
  }
  return errors;
}

std::string FlagSet::Usage() const {
  std::ostringstream out;
  out << "Usage:\n  " << program_ << " [flags]\n";
  for (const auto& [title, names] : sections_) {
    out << "\n" << title << ":\n\n";
    for (const std::string& name : names) {
      const Flag& f = flags_.at(name);
      std::string head = "      ";
      for (const auto& [letter, target] : shorthands_) {
        if (target == name) head = "  -" + std::string(1, letter) + ", ";
      }
      head += "--" + f.name + (f.type.empty() ? "" : " " + f.type);
      out << head;
      if (head.size() < 46) {
        out << std::string(46 - head.size(), ' ');
      } else {
        out << "\n" << std::string(46, ' ');
      }
      out << f.usage;
      if (!f.default_text.empty()) out << " (default " << f.default_text << ")";
      out << "\n";
    }
  }
  return out.str();
}

}  // namespace options
