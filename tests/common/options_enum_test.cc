// OptionSet::add_enum: an enum field read from the command line and YAML by any spelling of its
// name table, dumped and listed by its name, and a wrong value's error listing the names.
#include <gtest/gtest.h>

#include <array>

#include "common/enum_names.h"
#include "common/options.h"
#include "options_fixture.h"

namespace realmt::testing {

enum class Shade { kLight, kDark, kNone };
constexpr auto enum_names(Shade) {
  return std::to_array<EnumName<Shade>>({{Shade::kLight, "light"},
                                         {Shade::kDark, "dark"},
                                         {Shade::kNone, "none"},
                                         {Shade::kDark, "black"}});
}

namespace {

struct Painted {
  Shade shade = Shade::kLight;
  std::vector<Shade> layers{Shade::kDark};
};

OptionSet bind_enums(Painted* p) {
  OptionSet set("realmt-test", "Enum options");
  set.add_enum("Paint", "shade", &p->shade, "The shade")
      .add_enum("Paint", "layers", &p->layers, "Shades, in order");
  return set;
}

TEST(EnumNames, NamesSpellingsAndErrors) {
  EXPECT_STREQ(enum_name(Shade::kDark), "dark");
  EXPECT_EQ(try_parse_enum<Shade>("black"), Shade::kDark);  // a further spelling
  EXPECT_EQ(try_parse_enum<Shade>("Dark"), std::nullopt);   // exact spellings only
  EXPECT_EQ(enum_spellings<Shade>(), (std::vector<std::string>{"light", "dark", "none"}));
  EXPECT_EQ(enum_choices<Shade>(), "light, dark, none (or black)");
  EXPECT_EQ(parse_enum<Shade>("none", "shade"), Shade::kNone);
  EXPECT_HAS(error_of([] { parse_enum<Shade>("grey", "shade"); }),
             "shade 'grey' is not one of: light, dark, none");
}

TEST(OptionsEnum, CommandLineYamlDumpAndHelpUseTheNames) {
  Painted p;
  OptionSet set = bind_enums(&p);
  EXPECT_TRUE(parse(set, {"--shade", "black", "--layers", "none", "light"}));
  EXPECT_EQ(p.shade, Shade::kDark);
  EXPECT_EQ(p.layers, (std::vector<Shade>{Shade::kNone, Shade::kLight}));
  const std::string dump = set.dump_yaml(true);
  EXPECT_HAS(dump, "shade: dark\n");  // the name, not the spelling given
  EXPECT_HAS(dump, "layers: [none, light]\n");
  Painted q;
  OptionSet again = bind_enums(&q);
  again.load_yaml_string(dump, "dump.yml");
  EXPECT_EQ(q.shade, p.shade);
  EXPECT_EQ(q.layers, p.layers);
  again.load_yaml_string("shade: none\nlayers: [black]\n", "cfg.yml");
  EXPECT_EQ(q.shade, Shade::kNone);
  EXPECT_EQ(q.layers, std::vector<Shade>{Shade::kDark});
  EXPECT_HAS(set.help(), "--shade {light|dark|none}");
  EXPECT_HAS(set.help(), "(default: light)");
  EXPECT_HAS(set.help(), "--layers {light|dark|none}...");
}

TEST(OptionsEnum, AWrongValueNamesTheOptionAndTheChoices) {
  Painted p;
  OptionSet set = bind_enums(&p);
  std::string msg = error_of([&] { parse(set, {"--shade", "grey"}); });
  EXPECT_HAS(msg,
             "option 'shade' on the command line: expected one of: light, dark, none (or black), "
             "got 'grey'");
  msg = error_of([&] { set.load_yaml_string("layers: [dark, Light]\n", "cfg.yml"); });
  EXPECT_HAS(
      msg,
      "option 'layers' in cfg.yml:1: expected a list of values, each one of: light, dark, none");
  EXPECT_HAS(msg, "got 'Light'");
  EXPECT_EQ(p.layers, std::vector<Shade>{Shade::kDark});  // unchanged by the failed assignment
}

}  // namespace
}  // namespace realmt::testing
