"""Published prices of catalog parts, each read on a public page.

How they were gathered: on 2026-11-26 the planner's `search` tool (corpus "pages": stored
public web pages) was asked for listings and announced prices of each catalog part, GPUs
first. A price is kept only when the page states one figure for the part itself (never a
range, never a cloud rental rate, never a whole system); it is recorded as published (amount
and currency), with the page's address and the condition the page gives (a launch or list
price is "new"). `dated` says where `observed_on` comes from: "page" when the page carries a
date, "read" when it carries none and the date is the day it was read (2026-11-26). A
launch price is dated by the launch date its page gives: it is old, and the rankings flag it
as stale.
`quote` is the page's own words the figure was taken from.

A second search on 2026-11-28 (the same tool, "pages" corpus) added prices for parts that
had none or only an estimate; "read" dates of those rows are 2026-11-28. Hugging Face's
hardware pages print an MSRP rounded to a hundred dollars ("$8.5k", recorded as 8500; the
quote keeps the page's text).

A third search on 2026-11-29 read PCPartPicker's listings for CPUs, motherboards, NVMe drives,
memory kits, PSUs and cases from the same pc-part-dataset commit the GPU listings come from
(one listing per part, matched on the exact model, capacity, kit layout and speed; a colour
variant is the black one; a listing whose product year or module type the catalog name
leaves open, such as the Corsair RM750e's 2022, 2023 and 2025 versions, is not used).

A fourth search on 2026-11-29 (the same tool, "pages" corpus, and GitHub price datasets)
found one more dated listing: the A100 PCIe 40GB's Amazon buy-box price as the GitHub dataset
United-Compute/gpu-price-tracker recorded it (its export_gpu_json.py fills `prices` from the
`amazon_buy_box` field and keeps used offers apart in `amazon_used`, so the price is a new
one). Prices for the Instinct MI100, MI210, Radeon AI PRO R9700, H100 NVL and H200 NVL were
looked for and not found on a page that dates them (press pages with a month in the address
only, a rounded undated "MSRP $1.3k"): those parts stay unpriced.

A fifth search on 2026-12-06 (the same tool, "pages" and "docs" corpora) priced the GPUs
added that day: the RTX 4060 Ti 16GB at NVIDIA's announced $499, the RTX PRO 4000 and 4500
Blackwell at Hugging Face's MSRPs. The RTX PRO 5000 Blackwell (48 GB; the MSRP found is the
72 GB card's) and the Instinct MI50 32GB (used; only totals of 4- and 8-card bundles were
found) stay unpriced.

A sixth search on 2026-12-06 (the same tool and corpora, GitHub files too) priced the Radeon
AI PRO R9700 and the Instinct MI100 at Hugging Face's MSRPs (rounded and undated, as the A40's
and L40S's above) and the Threadripper 7960X and ASRock TRX50 WS at what one buyer paid
(HAYNES_BUILD_LOG, dated by the commit that added its table). The Instinct MI50 32GB's page
gives its 2018 launch MSRP ($1.8k): the card is sold only used today, at a fraction of it,
so that figure is left out and the card stays unpriced. For the other parts the search found
a different variant (SXM cards for the NVL ones, the 72 GB RTX PRO 5000, the 96 GB Mac Studio
M3 Ultra), another currency (CNY, VND), planning estimates, or nothing.

A seventh search on 2026-12-06 (the same tool and corpora) priced the Mac Studio M3 Ultra
512GB at Apple's $9,499, as Simon Willison's blog post of 2025-03-24 quotes it (the
32-core CPU, 80-core GPU, 1 TB configuration the catalog records; Apple withdrew it in March
2026, so the price is old and flagged as stale). Corsair PSU listings of PCPartPicker name a
model year (2022, 2023, 2025) the catalog's part does not, and the other parts' hits were
rounded build-plan figures, rentals, single modules of unstated type or pages with no date:
they stay unpriced or estimated.

An eighth search on 2026-12-07 (the same tool and corpora, GitHub files too) priced the
Corsair HX1500i and RM750e at PCPartPicker's listings of their 2025 models in the same
pc-part-dataset commit (the catalog's parts are those models: their wattage and rating are
every model year's, and the 2025 one is the one on sale), and the Supermicro H13SSL-N at
Newegg's $659 as a buyer's parts list on Pastebin quotes it (dated 2025-01-29 by the page).
The Threadripper and EPYC CPUs, the other sTR5 and SP5 boards, the Kingston RDIMM kits (the
dataset's one 32 GB DDR5-5600 Server Premier listing does not say registered or unbuffered),
the Hyper M.2 cards, the 4U8G-TURIN2 and the Instinct, NVL and RTX PRO 5000 cards again gave
ranges, estimates, rentals, other variants, other currencies or pages with no address.

A ninth search on 2026-12-08 (the same tool, GitHub files) found two dated price lists. A
budget note headed "Tentative pricing for drafting a budget (2024-10-22)" lists Scan UK's
prices of server CPUs and boards (SCAN_BUDGET_NOTE; the note does not say whether they
include VAT): the EPYC 9135, the EPYC 9124 and the GIGABYTE MZ33-AR0. A hardware budget
module checked on 2026-07-14 (NEWEGG_PURCHASE_SOURCES, its HARDWARE_PURCHASE_AS_OF) quotes
Newegg's listings of professional cards by part number, new, some from third-party sellers
(the vendor names the seller): the RTX PRO 5000 Blackwell 48 GB (PNY VCNRTXPRO5000B-PB),
and newer prices of the RTX A5000, A6000, 6000 Ada, PRO 4000 and PRO 4500 and the L40S.
Its quotes for the H100 PCIe 80GB and the RTX PRO 6000 stay out: seed 000's GPUs keep the
seed's prices alone, so that builds A–D cost what the seed says (reference-model.md §10).
The module's Chinese-market prices (CNY) stay out too: the rate table has no yuan.

Parts the searches found no such price for keep only the planner's estimate (vendor
"planner estimate", catalog/fixture_data/sources.py): out of the default rankings, shown
to users who opt in, and marked. The GPUs added in November 2026 (parts 118-123) have no
estimate: the RTX 4080 Super, 4070 Ti Super and 5070 Ti, for which the search found no
published price, have none and show as unpriced.
"""

from dataclasses import dataclass

READ_ON = "2026-11-26"
READ_ON_28 = "2026-11-28"  # the second search, for parts with no published price yet
READ_ON_DEC_6 = "2026-12-06"  # the fifth search, for the GPUs added in December 2026
STRIXHALO_WIKI_BOSGAME = (
    "https://github.com/kyuz0/strixhalo-homelab/blob/a52f32e8b22b714c943617edd5d95115925abbd7/"
    "Hardware/PCs/Bosgame_M5.md"
)
# PCPartPicker's listings as docyx/pc-part-dataset stored them ("Last updated: July 23, 2025")
PC_PART_DATASET = (
    "https://github.com/docyx/pc-part-dataset/blob/06ffc8eec068db5e8145e012ad2ec11e56a7c969/"
    "data/json/"
)
PC_PART_DATASET_LISTED_ON = "2025-07-23"
PAGE = "page"
# An Amazon listing's price history as the tracker's data file stores it (Keepa's buy box).
GPU_PRICE_TRACKER_A100_40GB = (
    "https://github.com/United-Compute/gpu-price-tracker/blob/"
    "bf8b56e365b1b1480d580b094ec92d1d2848b321/data/NVIDIA_A100_40GB_PCle.json"
)
# HKEPC's RTX 4070 SUPER Founders Edition review, page 2 (NVIDIA's figures, "官方數據").
HKEPC_4070_SUPER = (
    "https://h0.hkepc.com/21975/%E6%92%A5%E4%BA%82%E5%8F%8D%E6%AD%A3%E7%9A%84_SUPER__NVIDIA_"
    "GeForce_RTX_4070_SUPER_FE_%E5%AF%A6%E6%B8%AC/page/2"
)
READ = "read"
# A buyer's parts table with what he paid and where (Amazon, Newegg); the page carries no
# date, and the commit that added the table is of 2024-06-21 (an Amazon search link in it is
# stamped 2024-06-07).
HAYNES_BUILD_LOG = (
    "https://github.com/thaynes43/thaynes43.github.io/blob/"
    "609919a1ea37422bafc9b2945a400105a5343f52/hardware/haynesintelligence.md"
)
HAYNES_BUILD_LOG_ON = "2024-06-21"
# Scan UK's prices (GBP) in a budget note headed "Tentative pricing for drafting a budget
# (2024-10-22)"; the commit stored is of 2024-10-23.
SCAN_BUDGET_NOTE = (
    "https://github.com/AlexBlandin/alexblandin.github.io/blob/"
    "2aedd11c975bee65ff1da4c9ce43911ddc8c21d7/AISI-Proposal/pricing.md"
)
SCAN_BUDGET_NOTE_ON = "2024-10-22"
# Newegg listings quoted by part number in a hardware budget module, each "checkedOn" its
# HARDWARE_PURCHASE_AS_OF, "2026-07-14" (the page shows no date of its own).
NEWEGG_PURCHASE_SOURCES = (
    "https://github.com/Coco422/r-home-frontend/blob/"
    "6d300f7b2ba8f21dd6bf0da2dc28f3b45ebafe3d/src/lib/hardware-purchase.ts"
)
NEWEGG_PURCHASE_SOURCES_ON = "2026-07-14"


@dataclass(frozen=True, slots=True, kw_only=True)
class SourcedPrice:
    part_pk: int
    amount: str
    currency: str
    condition: str
    vendor: str
    region: str
    source_url: str
    observed_on: str
    dated: str
    quote: str


def _pcpartpicker(
    part_pk: int, amount: str, listing: str, category: str, quote: str
) -> SourcedPrice:
    """A new part's US price as PCPartPicker listed it on 2025-07-23 (pc-part-dataset's
    `category`.json, e.g. "video-card"); `listing` names the product the listing sells."""
    return SourcedPrice(
        part_pk=part_pk, amount=amount, currency="USD", condition="new",
        vendor=f"PCPartPicker ({listing})", region="US",
        source_url=f"{PC_PART_DATASET}{category}.json",
        observed_on=PC_PART_DATASET_LISTED_ON, dated=PAGE, quote=quote,
    )  # fmt: skip


def _hugging_face_msrp(
    part_pk: int, amount: str, page: str, observed_on: str, quote: str, maker: str = "NVIDIA"
) -> SourcedPrice:
    """The maker's MSRP as Hugging Face's hardware page `page` prints it, rounded to a hundred
    dollars ("$8.5k" is recorded as 8500; `quote` keeps the page's text); the page carries
    no date, so it is dated the day it was read."""
    return SourcedPrice(
        part_pk=part_pk, amount=amount, currency="USD", condition="new",
        vendor=f"{maker} MSRP (Hugging Face hardware page)", region="US",
        source_url=f"https://huggingface.co/hardware/{page}",
        observed_on=observed_on, dated=READ, quote=quote,
    )  # fmt: skip


def _haynes_build_log(part_pk: int, amount: str, shop: str, quote: str) -> SourcedPrice:
    """What the buyer of HAYNES_BUILD_LOG paid for a new part at `shop`, in US dollars."""
    return SourcedPrice(
        part_pk=part_pk, amount=amount, currency="USD", condition="new",
        vendor=f"{shop} purchase price (a buyer's build log)", region="US",
        source_url=HAYNES_BUILD_LOG, observed_on=HAYNES_BUILD_LOG_ON, dated=PAGE, quote=quote,
    )  # fmt: skip


def _scan_budget_note(part_pk: int, amount: str, quote: str) -> SourcedPrice:
    """Scan UK's price of a new part in pounds, as SCAN_BUDGET_NOTE lists it."""
    return SourcedPrice(
        part_pk=part_pk, amount=amount, currency="GBP", condition="new",
        vendor="Scan (scan.co.uk, as a budget note lists it)", region="UK",
        source_url=SCAN_BUDGET_NOTE, observed_on=SCAN_BUDGET_NOTE_ON, dated=PAGE, quote=quote,
    )  # fmt: skip


def _newegg_listing(part_pk: int, amount: str, seller: str, quote: str) -> SourcedPrice:
    """A new card's price on Newegg (sold by `seller`), as NEWEGG_PURCHASE_SOURCES quotes it."""
    return SourcedPrice(
        part_pk=part_pk, amount=amount, currency="USD", condition="new",
        vendor=f"Newegg ({seller}; a budget module's quote)", region="US",
        source_url=NEWEGG_PURCHASE_SOURCES, observed_on=NEWEGG_PURCHASE_SOURCES_ON, dated=PAGE,
        quote=quote,
    )  # fmt: skip


PRICE_OBSERVATIONS = [
    # --- GPUs -------------------------------------------------------------------------
    SourcedPrice(
        part_pk=106, amount="700", currency="USD", condition="used",
        vendor="local-llm.net (the author's own purchase)", region="US",
        source_url="https://www.local-llm.net/blog/rtx-3090-best-value-2026",
        observed_on=READ_ON, dated=READ,
        quote="RTX 3090 System: GPU: NVIDIA RTX 3090 FE (24GB GDDR6X) ... "
        "GPU purchased used: $700",
    ),
    SourcedPrice(
        part_pk=107, amount="1199", currency="USD", condition="new",
        vendor="NVIDIA launch price (Sportskeeda)", region="US",
        source_url="https://www.sportskeeda.com/gaming-tech/how-nvidia-rtx-4080-compare-rtx-4090",
        observed_on="2022-11-16", dated=PAGE,
        quote="The RTX 4080 is now available for purchase in leading online computer hardware "
        "stores. The graphics card is being sold at MSRP for now ... the $1,199 mark",
    ),
    SourcedPrice(
        part_pk=108, amount="999", currency="USD", condition="new",
        vendor="NVIDIA launch price (Technologist Mag)", region="US",
        source_url="https://technologistmag.com/nvidia-rtx-50-series-gpus-everything-we-know-so-far/amp",
        observed_on=READ_ON, dated=READ,
        quote="Here are the prices of upcoming GPUs: RTX 5090: $1,999 RTX 5080: $999",
    ),
    SourcedPrice(
        part_pk=109, amount="3721", currency="USD", condition="new",
        vendor="NVIDIA MSRP (ChipVERSUS)", region="US",
        source_url="https://chipversus.com/hardware/gpu/l4",
        observed_on=READ_ON, dated=READ,
        quote="RTX A5000 MSRP: $3721|Avg: $1800",
    ),
    SourcedPrice(
        part_pk=110, amount="4649", currency="USD", condition="new",
        vendor="NVIDIA MSRP (ChipVERSUS)", region="US",
        source_url="https://chipversus.com/hardware/gpu/l4",
        observed_on=READ_ON, dated=READ,
        quote="RTX A6000 MSRP: $4649|Avg: $3500",
    ),
    SourcedPrice(
        part_pk=111, amount="6799", currency="USD", condition="new",
        vendor="NVIDIA MSRP (PC Part DB)", region="US",
        source_url="https://pcpartdb.com/gpus/compare/nvidia-rtx-6000-ada-generation--vs--amd-radeon-rx-6900-xt",
        observed_on=READ_ON, dated=READ,
        quote="The NVIDIA RTX 6000 Ada Generation is a workstation graphics card that launched "
        "in Q1 2023 with a MSRP of $6,799.",
    ),
    SourcedPrice(
        part_pk=112, amount="2345", currency="USD", condition="new",
        vendor="NVIDIA MSRP (ChipVERSUS)", region="US",
        source_url="https://chipversus.com/hardware/gpu/l4",
        observed_on=READ_ON, dated=READ,
        quote="L4 NVIDIA ... MSRP $2345 AVG Price $1800 March 21 2023",
    ),
    SourcedPrice(
        part_pk=118, amount="1999", currency="USD", condition="new",
        vendor="NVIDIA launch price (SlashGear)", region="US",
        source_url="https://www.slashgear.com/814997/nvidia-geforce-rtx-3090-ti-brings-out-the-big-guns/",
        observed_on="2022-03-29", dated=PAGE,
        quote="NVIDIA announced that the GeForce RTX 3090 Ti will arrive priced at $1,999 for "
        "the Founders Edition.",
    ),
    SourcedPrice(
        part_pk=121, amount="429", currency="USD", condition="new",
        vendor="NVIDIA launch price (ChipVERSUS)", region="US",
        source_url="https://chipversus.com/hardware/gpu/geforce-rtx-5060-ti-16gb",
        observed_on="2025-04-16", dated=PAGE,
        quote="GeForce RTX 5060 Ti 16GB NVIDIA ... MSRP $429 ... It was released in April 16 "
        "2025. ... Launch price was $429.",
    ),
    SourcedPrice(
        part_pk=123, amount="8565", currency="USD", condition="new",
        vendor="NVIDIA launch price (Technical City)", region="US",
        source_url="https://technical.city/en/video/RTX-4000-SFF-Ada-Generation-vs-RTX-PRO-6000-Blackwell-Max-Q",
        observed_on="2025-03-18", dated=PAGE,
        quote="RTX PRO 6000 Blackwell Max-Q ... Release date | 18 March 2025 ... Launch price "
        "(MSRP) | $8,565",
    ),
    # --- CPUs -------------------------------------------------------------------------
    SourcedPrice(
        part_pk=204, amount="650", currency="USD", condition="new",
        vendor="AMD launch price (SemiVoice)", region="US",
        source_url="https://news.semivoice.com/post/47ed06b5",
        observed_on=READ_ON, dated=READ,
        quote="The AMD Ryzen 9 9950X is a 16-core/32-thread processor ... Priced at $650",
    ),
    SourcedPrice(
        part_pk=213, amount="589", currency="USD", condition="new",
        vendor="Intel launch price (CIO Insights)", region="US",
        source_url="https://cioinsights.com/blog/intels-core-ultra-9-285k-cpu-is-one-step-forward-one-step-back-for-pc-gaming",
        observed_on=READ_ON, dated=READ,
        quote="I've been testing Intel's $589 next-generation flagship Core Ultra 9 285K "
        "processor",
    ),
    SourcedPrice(
        part_pk=231, amount="1083", currency="USD", condition="new",
        vendor="AMD list price (ChipVERSUS)", region="US",
        source_url="https://chipversus.com/compare/epyc-9124-vs-xeon-gold-6312u",
        observed_on=READ_ON, dated=READ,
        quote="| Price | ✅ More affordable ($1,083) | ⚠️ Higher cost ($1,645) |",
    ),
    SourcedPrice(
        part_pk=110, amount="2800", currency="USD", condition="used",
        vendor="SpecPicks (used price in a 2026 buying guide)", region="US",
        source_url="https://specpicks.com/reviews/best-gpu-llama-70b-rtx-3060-stack-vs-workstation-2",
        observed_on=READ_ON_28, dated=READ,
        quote="A single used RTX A6000 48 GB at $2,800 wins on simplicity and quality",
    ),
    _hugging_face_msrp(113, "5500", "a40", READ_ON_28, "MSRP $5.5k Released 2020"),
    _hugging_face_msrp(114, "8500", "l40s", READ_ON_28, "MSRP $8.5k Released 2023"),
    SourcedPrice(
        part_pk=119, amount="999", currency="USD", condition="new",
        vendor="NVIDIA launch price (XDA Developers)", region="US",
        source_url="https://www.xda-developers.com/needed-rtx-5080-upgrade-3080/",
        observed_on="2024-12-24", dated=PAGE, quote="The RTX 4080 Super launched at $999",
    ),
    _hugging_face_msrp(120, "800", "rtx-4070-ti-super", READ_ON_28, "MSRP $800 Released 2024"),
    SourcedPrice(
        part_pk=122, amount="749", currency="USD", condition="new",
        vendor="NVIDIA MSRP (Redactle Unlimited)", region="US",
        source_url="https://redactleunlimited.com/xbox/the-4-best-gpus-of-2025-revealed-why-nvidias-",
        observed_on=READ_ON_28, dated=READ, quote="the Nvidia RTX 5070 Ti commanded a $749 MSRP",
    ),
    *(
        SourcedPrice(
            part_pk=pk, amount=amount, currency="USD", condition="new",
            vendor="AMD launch price (MyBroadband)", region="US",
            source_url="https://mybroadband.co.za/news/hardware/"
            "467523-amd-unveils-powerful-new-radeon-rx-7900-graphics-cards.html",
            observed_on="2022-11-04", dated=PAGE,
            quote="In the US, the RX 7900 XTX will come with a single exit price (SEP) of $999, "
            "while the RX 7900 XT will start at $899.",
        )
        for pk, amount in ((124, "999"), (125, "899"))
    ),
    # PCPartPicker's listed prices as of 2025-07-23, as the pc-part-dataset repository
    # scraped them (the listing names the partner card); and NVIDIA's launch MSRPs.
    _pcpartpicker(
        126, "299.97", "MSI GeForce RTX 3060 Ventus 2X 12G", "video-card",
        '"name":"MSI GeForce RTX 3060 Ventus 2X 12G","price":299.97,'
        '"chipset":"GeForce RTX 3060 12GB"',
    ),
    SourcedPrice(
        part_pk=126, amount="329", currency="USD", condition="new",
        vendor="NVIDIA MSRP (Wccftech)", region="US",
        source_url="https://wccftech.com/nvidia-geforce-rtx-3060-12-gb-gddr6-graphics-card-"
        "official-ampere-ga106-gpu-launching-in-february-for-329-us/",
        observed_on="2021-01-12", dated=PAGE,
        quote="The graphics card will feature a reference MSRP of $329 US",
    ),
    SourcedPrice(
        part_pk=127, amount="699", currency="USD", condition="new",
        vendor="NVIDIA MSRP (HotHardware)", region="US",
        source_url="https://hothardware.com/news/nvidia-geforce-rtx-3060-launch-feb-25-what-expect",
        observed_on="2021-02-08", dated=PAGE, quote="GeForce RTX 3080: $699 ... Those are MSRPs",
    ),
    _pcpartpicker(
        127, "779", "MSI GeForce RTX 3080 GAMING X TRIO 10G", "video-card",
        '"name":"MSI GeForce RTX 3080 GAMING X TRIO 10G","price":779,'
        '"chipset":"GeForce RTX 3080 10GB"',
    ),
    SourcedPrice(
        part_pk=128, amount="599", currency="USD", condition="new",
        vendor="NVIDIA MSRP (HKEPC)", region="US",
        source_url=HKEPC_4070_SUPER, observed_on=READ_ON_28, dated=READ,
        quote="規格明顯提升更重要是售價卻不變,MSRP 維持在 US$599。",
    ),
    _pcpartpicker(
        128, "629.99", "Asus DUAL EVO OC, RTX 4070 SUPER", "video-card",
        '"name":"Asus DUAL EVO OC","price":629.99,"chipset":"GeForce RTX 4070 SUPER"',
    ),
    SourcedPrice(
        part_pk=129, amount="600", currency="USD", condition="new",
        vendor="AMD MSRP (GamersNexus, Sapphire RX 9070 XT Pulse)", region="US",
        source_url="https://devtest.gamersnexus.net/gpus/"
        "tearing-down-sapphires-rx-9070-xt-pulse-thermals-fan-response-noise",
        observed_on="2025-03-15", dated=PAGE, quote="Original MSRP: $600",
    ),
    _pcpartpicker(
        129, "699.99", "ASRock Steel Legend, RX 9070 XT", "video-card",
        '"name":"ASRock Steel Legend","price":699.99,"chipset":"Radeon RX 9070 XT"',
    ),
    _pcpartpicker(
        130, "3640", "AMD 100-300000074, Radeon PRO W7900", "video-card",
        '"name":"AMD 100-300000074","price":3640,"chipset":"Radeon PRO W7900"',
    ),
    SourcedPrice(
        part_pk=131, amount="549", currency="USD", condition="new",
        vendor="NVIDIA MSRP (Technologist)", region="US",
        source_url="https://technologistmag.com/nvidia-rtx-50-series-gpus-everything-we-know-so-far/amp",
        observed_on=READ_ON_28, dated=READ, quote="- RTX 5070: $549",
    ),
    _pcpartpicker(
        131, "549.99", "NVIDIA Founders Edition, RTX 5070", "video-card",
        "NVIDIA Founders Edition,549.99,GeForce RTX 5070,12,2160,2510,Black / Gray,242",
    ),
    # --- Systems --------------------------------------------------------------------
    SourcedPrice(
        part_pk=801, amount="2400", currency="USD", condition="new",
        vendor="Sandhills CTO (price cited in an article)", region="US",
        source_url="https://sandhillscto.com/insights/apple-silicon-local-ai",
        observed_on=READ_ON_28, dated=READ,
        quote="A Mac Mini M4 Pro with 64GB gives the GPU access to the full 64GB. ... runs "
        "fine on a $2,400 Mac Mini.",
    ),
    SourcedPrice(
        part_pk=802, amount="4674", currency="EUR", condition="new",
        vendor="Apple Italy price (DDay.it review)", region="EU",
        source_url="https://global.dday.it/2025/03/11/407/mac-studio-m3-ultra-review-the-perfect-wor",
        observed_on="2025-03-11", dated=PAGE,
        quote="The Mac Studio M4 Max with 16-core CPU, 40-core GPU, 16-core Neural Engine, 128GB "
        "of unified memory, and 1TB SSD indeed costs 4,674 euros",
    ),
    SourcedPrice(
        part_pk=805, amount="3999", currency="USD", condition="new",
        vendor="NVIDIA launch price (Benzinga)", region="US",
        source_url="https://www.benzinga.com/markets/tech/25/10/48267874/nine-years-after-"
        "delivering-1st-dgx-nvidias-jensen-huang-hand-delivers-new-dgx-spark-to-elon-musk",
        observed_on="2025-10-17", dated=PAGE,
        quote="The DGX Spark, priced at $3,999, delivers up to one petaflop of AI performance",
    ),
    SourcedPrice(
        part_pk=805, amount="4699", currency="USD", condition="new",
        vendor="NVIDIA list price after the 2026 increase (Compute Market)", region="US",
        source_url="https://www.compute-market.com/blog/dgx-spark-vs-strix-halo-local-ai-2026",
        observed_on=READ_ON_28, dated=READ,
        quote="At the same time, NVIDIA quietly raised the DGX Spark to $4,699, blaming the 2026 "
        "LPDDR5X/NAND shortage.",
    ),
    SourcedPrice(
        part_pk=806, amount="2459", currency="USD", condition="new",
        vendor="Framework list price after its January 2026 increase (Zento Info)",
        region="US",
        source_url="https://www.zentoinfo.online/2026/01/frameworks-price-hike-ai-driven-dram.html",
        observed_on=READ_ON_28, dated=READ,
        quote="the 128GB model was hit with the full force of the market volatility, jumping from "
        "an estimated $1,999 to $2,459",
    ),
    # Read 2026-11-28: Bosgame's list price as the strixhalo-homelab wiki quotes it (the page
    # carries no date), and Apple's launch prices of the base Mac Studio and Mac mini M4 Pro.
    *(
        SourcedPrice(
            part_pk=807, amount=amount, currency=currency, condition="new",
            vendor=f"Bosgame list price, {region} (strixhalo-homelab wiki)", region=region,
            source_url=STRIXHALO_WIKI_BOSGAME, observed_on=READ_ON_28, dated=READ,
            quote="Price: $3099 / 2712€ for the 128GB version ... The PC comes with Windows 11 "
            "Pro preinstalled on the 2TB SSD.",
        )
        for amount, currency, region in (("3099", "USD", "US"), ("2712", "EUR", "EU"))
    ),
    SourcedPrice(
        part_pk=808, amount="1999", currency="USD", condition="new",
        vendor="Apple launch price (TechUncut)", region="US",
        source_url="https://www.techuncut.com/2025/03/06/apples-mac-studio-m4-max-m3-ultra-a-"
        "powerful-dilemma/",
        observed_on="2025-03-06", dated=PAGE,
        quote="The basic model starts at $1.999 with the M4 Max ... starts with 36 GB of RAM",
    ),
    SourcedPrice(
        part_pk=809, amount="1399", currency="USD", condition="new",
        vendor="Apple launch price (C# Corner news)", region="US",
        source_url="https://c-sharpcorner.com/news/apple-unveils-m4-pro-chip-debuts-with-new-"
        "mac-mini",
        observed_on=READ_ON_28, dated=READ,
        quote="the new Mac Mini with M4 starts at $599 while upgrading to the Pro version raises "
        "that price to $1,399",
    ),
    # --- NVMe drives ----------------------------------------------------------------
    SourcedPrice(
        part_pk=415, amount="124.99", currency="USD", condition="new",
        vendor="Amazon.com (listing shown by Real Hardware Reviews)", region="US",
        source_url="https://realhardwarereviews.com/crucial-t500-2tb-review/4",
        observed_on="2025-06-18", dated=PAGE,
        quote="Crucial T500 2TB Gen4 NVMe M.2 Internal Gaming SSD ... CT2000T500SSD8 ... "
        "$124.99 ... in stock ... as of June 18, 2025 4:34 am",
    ),
    # --- PCPartPicker's listings (docyx/pc-part-dataset, July 23, 2025) for CPUs, boards,
    # drives, memory, PSUs and cases, searched 2026-11-29; the quote is the dataset's record.
    _pcpartpicker(
        211, "259.99", "Intel Core Ultra 5 245K", "cpu",
        '{"name":"Intel Core Ultra 5 245K","price":259.99,"core_count":14,"core_clock":4.2,'
        '"boost_clock":5.2,"microarchitecture":"Arrow Lake","tdp":125,"graphics":"Intel Xe"}',
    ),
    _pcpartpicker(
        212, "269.99", "Intel Core Ultra 7 265K", "cpu",
        '{"name":"Intel Core Ultra 7 265K","price":269.99,"core_count":20,"core_clock":3.9,'
        '"boost_clock":5.5,"microarchitecture":"Arrow Lake","tdp":125,"graphics":"Intel Xe"}',
    ),
    _pcpartpicker(
        303, "468.95", "ASRock X870E Taichi", "motherboard",
        '{"name":"ASRock X870E Taichi","price":468.95,"socket":"AM5","form_factor":"EATX",'
        '"max_memory":256,"memory_slots":4,"color":"Black"}',
    ),
    _pcpartpicker(
        304, "273", "MSI PRO X870-P WIFI", "motherboard",
        '{"name":"MSI PRO X870-P WIFI","price":273,"socket":"AM5","form_factor":"ATX",'
        '"max_memory":256,"memory_slots":4,"color":"Black / Silver"}',
    ),
    _pcpartpicker(
        311, "239.99", "Asus PRIME Z890-P WIFI", "motherboard",
        '{"name":"Asus PRIME Z890-P WIFI","price":239.99,"socket":"LGA1851",'
        '"form_factor":"ATX","max_memory":192,"memory_slots":4,"color":"Black / Silver"}',
    ),
    _pcpartpicker(
        312, "239.99", "MSI MAG Z890 TOMAHAWK WIFI", "motherboard",
        '{"name":"MSI MAG Z890 TOMAHAWK WIFI","price":239.99,"socket":"LGA1851",'
        '"form_factor":"ATX","max_memory":256,"memory_slots":4,"color":"Black / Yellow"}',
    ),
    _pcpartpicker(
        313, "489.99", "Asus ProArt Z890-CREATOR WIFI", "motherboard",
        '{"name":"Asus ProArt Z890-CREATOR WIFI","price":489.99,"socket":"LGA1851",'
        '"form_factor":"ATX","max_memory":256,"memory_slots":4,"color":"Black / Gold"}',
    ),
    _pcpartpicker(
        401, "189.95", "Samsung 970 Evo Plus 2000 GB", "internal-hard-drive",
        '{"name":"Samsung 970 Evo Plus","price":189.95,"capacity":2000,"price_per_gb":0.095,'
        '"type":"SSD","cache":1024,"form_factor":"M.2-2280","interface":"M.2 PCIe 3.0 X4"}',
    ),
    _pcpartpicker(
        402, "119.99", "Crucial P3 2000 GB", "internal-hard-drive",
        '{"name":"Crucial P3","price":119.99,"capacity":2000,"price_per_gb":0.06,'
        '"type":"SSD","cache":null,"form_factor":"M.2-2280","interface":"M.2 PCIe 3.0 X4"}',
    ),
    _pcpartpicker(
        412, "299.99", "Samsung 990 Pro 4000 GB", "internal-hard-drive",
        '{"name":"Samsung 990 Pro","price":299.99,"capacity":4000,"price_per_gb":0.075,'
        '"type":"SSD","cache":4096,"form_factor":"M.2-2280","interface":"M.2 PCIe 4.0 X4"}',
    ),
    _pcpartpicker(
        413, "154.54", "Western Digital WD_Black SN850X 2000 GB", "internal-hard-drive",
        '{"name":"Western Digital WD_Black SN850X","price":154.54,"capacity":2000,'
        '"price_per_gb":0.077,"type":"SSD","cache":null,"form_factor":"M.2-2280",'
        '"interface":"M.2 PCIe 4.0 X4"}',
    ),
    _pcpartpicker(
        414, "113.95", "Crucial P3 Plus 2000 GB", "internal-hard-drive",
        '{"name":"Crucial P3 Plus","price":113.95,"capacity":2000,"price_per_gb":0.057,'
        '"type":"SSD","cache":null,"form_factor":"M.2-2280","interface":"M.2 PCIe 4.0 X4"}',
    ),
    _pcpartpicker(
        422, "219.99", "Crucial T700 2000 GB", "internal-hard-drive",
        '{"name":"Crucial T700","price":219.99,"capacity":2000,"price_per_gb":0.11,'
        '"type":"SSD","cache":null,"form_factor":"M.2-2280","interface":"M.2 PCIe 5.0 X4"}',
    ),
    _pcpartpicker(
        423, "229.99", "Samsung 9100 PRO 2000 GB", "internal-hard-drive",
        '{"name":"Samsung 9100 PRO","price":229.99,"capacity":2000,"price_per_gb":0.115,'
        '"type":"SSD","cache":2048,"form_factor":"M.2-2280","interface":"M.2 PCIe 5.0 X4"}',
    ),
    _pcpartpicker(
        424, "224.99", "Western Digital WD_BLACK SN8100 2000 GB", "internal-hard-drive",
        '{"name":"Western Digital WD_BLACK SN8100","price":224.99,"capacity":2000,'
        '"price_per_gb":0.112,"type":"SSD","cache":2048,"form_factor":"M.2-2280",'
        '"interface":"M.2 PCIe 5.0 X4"}',
    ),
    _pcpartpicker(
        503, "329.99", "G.Skill Flare X5 96 GB DDR5-6000 2x48GB", "memory",
        '{"name":"G.Skill Flare X5 96 GB","price":329.99,"speed":[5,6000],"modules":[2,48],'
        '"price_per_gb":3.437,"color":"Black","first_word_latency":10,"cas_latency":30}',
    ),
    _pcpartpicker(
        504, "540.99", "Corsair Vengeance 128 GB DDR5-5600 4x32GB", "memory",
        '{"name":"Corsair Vengeance 128 GB","price":540.99,"speed":[5,5600],"modules":[4,32],'
        '"price_per_gb":4.226,"color":"Black","first_word_latency":14.286,"cas_latency":40}',
    ),
    _pcpartpicker(
        505, "279.99", "Crucial CT2K64G56C46U5 128 GB DDR5-5600 2x64GB", "memory",
        '{"name":"Crucial CT2K64G56C46U5 128 GB","price":279.99,"speed":[5,5600],'
        '"modules":[2,64],"price_per_gb":2.187,"color":"Black","first_word_latency":16.429,'
        '"cas_latency":46}',
    ),
    _pcpartpicker(
        506, "614.99", "Corsair Vengeance 192 GB DDR5-5200 4x48GB", "memory",
        '{"name":"Corsair Vengeance 192 GB","price":614.99,"speed":[5,5200],"modules":[4,48],'
        '"price_per_gb":3.203,"color":"Black","first_word_latency":14.615,"cas_latency":38}',
    ),
    _pcpartpicker(
        605, "229.99", "Corsair RM1200x SHIFT Black", "power-supply",
        '{"name":"Corsair RM1200x SHIFT","price":229.99,"type":"ATX","efficiency":"gold",'
        '"wattage":1200,"modular":"Full / Side","color":"Black"}',
    ),
    _pcpartpicker(
        704, "219.99", "Fractal Design Meshify 2 XL", "case",
        '{"name":"Fractal Design Meshify 2 XL","price":219.99,"type":"ATX Full Tower",'
        '"color":"Black","psu":null,"side_panel":"Tinted Tempered Glass",'
        '"external_volume":81.5,"internal_35_bays":6}',
    ),
    _pcpartpicker(
        705, "254.98", "Lian Li O11 Dynamic EVO XL Black", "case",
        '{"name":"Lian Li O11 Dynamic EVO XL","price":254.98,"type":"ATX Full Tower",'
        '"color":"Black","psu":null,"side_panel":"Tempered Glass","external_volume":84.4,'
        '"internal_35_bays":4}',
    ),
    SourcedPrice(
        part_pk=115, amount="6639.00", currency="USD", condition="new",
        vendor="Amazon.com buy-box price (United-Compute/gpu-price-tracker)", region="US",
        source_url=GPU_PRICE_TRACKER_A100_40GB, observed_on="2025-08-21", dated=PAGE,
        quote='"2025-08-21T12:44:00": 6639.0',
    ),
    SourcedPrice(
        part_pk=135, amount="499", currency="USD", condition="new",
        vendor="NVIDIA MSRP (th3tc.com)", region="US",
        source_url="https://th3tc.com/nvidia-unveils-299-geforce-rtx-4060-399-rtx-4060-ti-with-dlss-3/",
        # NVIDIA's announcement of 18 May 2023 (the article: the 8 GB card "will be
        # available next week, May 24").
        observed_on="2023-05-18", dated=PAGE,
        quote="Nvidia also revealed that a $499 version of the RTX 4060 Ti with 16GB of memory "
        "(and no other tweaks) will launch in July",
    ),
    _pcpartpicker(
        135, "449.99", "PNY VERTO, RTX 4060 Ti 16GB", "video-card",
        '"name":"PNY VERTO","price":449.99,"chipset":"GeForce RTX 4060 Ti","memory":16',
    ),
    _hugging_face_msrp(137, "1500", "rtx-pro-4000", READ_ON_DEC_6, "MSRP $1.5k Released 2025"),
    _hugging_face_msrp(138, "2800", "rtx-pro-4500-ws", READ_ON_DEC_6, "MSRP $2.8k Released 2025"),
    # --- the sixth search (2026-12-06) ---------------------------------------------------
    _hugging_face_msrp(
        134, "1300", "r9700-pro", READ_ON_DEC_6, "R9700 PRO AMD GPU ... Memory 32GB ... MSRP "
        "$1.3k Released 2025", maker="AMD",
    ),
    _hugging_face_msrp(
        132, "6400", "mi100", READ_ON_DEC_6, "MI100 AMD GPU ... Memory 32GB ... MSRP $6.4k "
        "Released 2020", maker="AMD",
    ),
    _haynes_build_log(
        221, "1400", "Amazon", "| AMD Ryzen™ Threadripper™ 7960X | $1400 | 1 | $1400 | "
        "Probably the lest expensive Threadripper I could find. |",
    ),
    _haynes_build_log(
        322, "780", "Newegg",
        "| ASRock TRX50 WS | $780 | 1 | $780 | Could support 3 GPUs + 10Gb NIC |",
    ),
    # --- the seventh search (2026-12-06) --------------------------------------------------
    SourcedPrice(
        part_pk=804, amount="9499", currency="USD", condition="new",
        vendor="Apple list price (simonwillison.net)", region="US",
        source_url="https://simonwillison.net/2025/Mar/24/deepseek/",
        observed_on="2025-03-24", dated=PAGE,
        quote="512GB M3 Ultra Mac Studio ($9,499 of ostensibly consumer-grade hardware)",
    ),
    # --- the eighth search (2026-12-07) ---------------------------------------------------
    _pcpartpicker(
        606, "348.99", "Corsair HX1500i (2025)", "power-supply",
        '"name":"Corsair HX1500i (2025)","price":348.99,"type":"ATX","efficiency":"platinum",'
        '"wattage":1500,"modular":"Full","color":"Black"',
    ),
    _pcpartpicker(
        607, "99.99", "Corsair RM750e (2025)", "power-supply",
        '"name":"Corsair RM750e (2025)","price":99.99,"type":"ATX","efficiency":null,'
        '"wattage":750,"modular":"Full","color":"Black"',
    ),
    SourcedPrice(
        part_pk=331, amount="659", currency="USD", condition="new",
        vendor="Newegg listing (a buyer's parts list on Pastebin)", region="US",
        source_url="https://pastebin.com/64ERmKgf", observed_on="2025-01-29", dated=PAGE,
        quote="Supermicro Server Motherboard MBD-H13SSL-N Socket "
        "https://www.newegg.com/p/N82E16813183819 $659",
    ),
    # --- the ninth search (2026-12-08) ----------------------------------------------------
    _scan_budget_note(
        232, "1238.99", "£1,238.99 AMD EPYC 9135 (32 vCPUs, 200 W, Zen 5, [AVX512 uplift]"
        "(https://justine.lol/matmul/))",
    ),
    _scan_budget_note(231, "920.99", "£920.99 AMD EPYC 9124 (32 vCPUs, 200 W, Zen 4)"),
    _scan_budget_note(332, "994.99", "£994.99 Gigabyte AMD MZ33-AR0 (SP5)"),
    _newegg_listing(
        139, "6490", "Alliance Group (USA)", 'label: "PNY VCNRTXPRO5000B-PB RTX PRO 5000 '
        'Blackwell 48GB" ... condition: "第三方公开零售新品" (third-party retail, new) ... '
        "quotedPrice: { amount: 6_490, currency: \"USD\" }",
    ),
    _newegg_listing(
        109, "2668", "Tech Trends", 'label: "PNY VCNRTXA5000-PB RTX A5000 24GB" ... '
        'quotedPrice: { amount: 2_668, currency: "USD" }',
    ),
    _newegg_listing(
        110, "5790", "Tech Trends", 'label: "PNY VCNRTXA6000-PB RTX A6000 48GB" ... '
        'quotedPrice: { amount: 5_790, currency: "USD" }',
    ),
    _newegg_listing(
        111, "7229", "PlatinumMicro", 'label: "PNY VCNRTX6000ADA-PB RTX 6000 Ada 48GB" ... '
        'quotedPrice: { amount: 7_229, currency: "USD" }',
    ),
    _newegg_listing(
        137, "2211.80", "antonline", 'label: "PNY VCNRTXPRO4000B-PB RTX PRO 4000 Blackwell '
        '24GB" ... quotedPrice: { amount: 2_211.8, currency: "USD" }',
    ),
    _newegg_listing(
        138, "3445.99", "Newegg", 'label: "PNY VCNRTXPRO4500B-PB RTX PRO 4500 Blackwell 32GB" '
        '... quotedPrice: { amount: 3_445.99, currency: "USD" }',
    ),
    _newegg_listing(
        114, "8095.99", "Newegg", 'label: "NVIDIA L40S 48GB · PN 900-2G133-0080-000" ... '
        'quotedPrice: { amount: 8_095.99, currency: "USD" }',
    ),
]  # fmt: skip
