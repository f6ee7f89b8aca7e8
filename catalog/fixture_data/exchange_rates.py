"""The rate table that converts prices in euros and pounds to US dollars: the ECB's euro
foreign exchange reference rates of one day, as published (units of each currency one euro
bought). Source: the ECB's daily reference-rate file (eurofxref-daily.xml) of 2026-03-13,
as kept in the public repository bosorior/microsoftFabric, file eurofxref-daily.xml, commit
fdf6da417cde77c38c483be144dec23e11878dd1 (the file writes the decimal point as a comma:
USD '1,1476', GBP '0,86503')."""

ECB_RATE_DATE = "2026-03-13"
ECB_SOURCE = (
    "ECB euro foreign exchange reference rates, 2026-03-13 (eurofxref-daily.xml; copy in "
    "github.com/bosorior/microsoftFabric@fdf6da417cde77c38c483be144dec23e11878dd1)"
)

# (currency, units per euro, rate date, source)
EXCHANGE_RATES = [
    ("USD", "1.1476", ECB_RATE_DATE, ECB_SOURCE),
    ("GBP", "0.86503", ECB_RATE_DATE, ECB_SOURCE),
]
