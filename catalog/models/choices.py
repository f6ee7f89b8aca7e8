"""Enumerations shared by the catalog's models."""

from django.db import models


class PartKind(models.TextChoices):
    GPU = "gpu", "GPU"
    CPU = "cpu", "CPU"
    MOTHERBOARD = "motherboard", "motherboard"
    NVME_DRIVE = "nvme_drive", "NVMe drive"
    NVME_CARD = "nvme_card", "NVMe add-in card"
    RAM_KIT = "ram_kit", "RAM kit"
    PSU = "psu", "power supply"
    CASE = "case", "case"
    SYSTEM = "system", "whole system (unified memory)"


class PcieGen(models.IntegerChoices):
    GEN3 = 3, "PCIe 3.0"
    GEN4 = 4, "PCIe 4.0"
    GEN5 = 5, "PCIe 5.0"


class Socket(models.TextChoices):
    AM5 = "AM5", "AMD AM5"
    STR5 = "sTR5", "AMD sTR5 (TRX50, WRX90)"
    SP5 = "SP5", "AMD SP5"
    LGA1851 = "LGA1851", "Intel LGA1851"


class MemoryGen(models.TextChoices):
    DDR4 = "DDR4", "DDR4"
    DDR5 = "DDR5", "DDR5"


class ModuleType(models.TextChoices):
    UDIMM = "UDIMM", "unbuffered (UDIMM)"
    RDIMM = "RDIMM", "registered ECC (RDIMM)"


class BoardFormFactor(models.TextChoices):
    MICRO_ATX = "mATX", "micro-ATX"
    ATX = "ATX", "ATX"
    EATX = "E-ATX", "E-ATX"
    SSI_EEB = "SSI-EEB", "SSI-EEB"
    PROPRIETARY = "proprietary", "proprietary (server system board)"


class PsuFormFactor(models.TextChoices):
    ATX = "ATX", "ATX"
    SERVER = "server", "server redundant modules (CRPS)"


class CaseSize(models.TextChoices):
    """How big a build's enclosure is, smallest first, as the case's maker classes it. A
    whole system (unified memory) is its own compact enclosure."""

    COMPACT = "compact", "compact desktop (whole system)"
    MID_TOWER = "mid_tower", "mid tower"
    FULL_TOWER = "full_tower", "full tower"
    RACK = "rack", "rack chassis"


class Currency(models.TextChoices):
    USD = "USD", "US dollar"
    EUR = "EUR", "euro"
    GBP = "GBP", "pound sterling"


class Condition(models.TextChoices):
    NEW = "new", "new"
    USED = "used", "used"
    REFURBISHED = "refurbished", "refurbished"


class Region(models.TextChoices):
    """Where a price was offered: the market a buyer in that region pays it in."""

    US = "US", "United States"
    EU = "EU", "European Union"
    UK = "UK", "United Kingdom"
    WORLDWIDE = "WW", "worldwide (ships anywhere)"


class PriceChangeVia(models.TextChoices):
    ADMIN = "admin", "admin form"
    IMPORT = "import", "price-list import"
    API = "api", "REST API"
    SERVICE = "service", "code"


class BuildOrigin(models.TextChoices):
    SEED = "seed", "seed document"
    GENERATED = "generated", "candidate generator"
    USER = "user", "user"
